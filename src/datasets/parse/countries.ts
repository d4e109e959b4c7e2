// ISO 3166-1 alpha-2 codes and English country names, from the runtime's CLDR data (Intl.DisplayNames),
// plus the spellings the IEEE registry uses that CLDR does not.

// CLDR knows these two-letter codes, but they are not assigned ISO 3166-1 countries: groupings,
// exceptional reservations (UK, AC, ...), withdrawn codes (SU, YU, ...) and pseudo-locales.
const NOT_COUNTRIES = new Set([
  'EU', 'EZ', 'UN', 'ZZ', 'QO', 'XA', 'XB', 'UK', 'AC', 'CP', 'CQ', 'DG', 'EA', 'IC', 'TA',
  'AN', 'BU', 'CS', 'DD', 'FX', 'SU', 'TP', 'YD', 'YU', 'ZR',
]);

const codes = new Set<string>();
const byName = new Map<string, string>();

const display = new Intl.DisplayNames(['en'], { type: 'region' });
for (let a = 65; a <= 90; a++) {
  for (let b = 65; b <= 90; b++) {
    const cc = String.fromCharCode(a, b);
    if (NOT_COUNTRIES.has(cc)) continue;
    let name: string | undefined;
    try {
      name = display.of(cc);
    } catch {
      name = undefined;
    }
    if (name === undefined || name === cc) continue;
    codes.add(cc);
    byName.set(normalise(name), cc);
  }
}

// Registry (ISO 3166 short names) spellings that differ from CLDR's.
const ALIASES: Record<string, string> = {
  'united states of america': 'US',
  'korea, republic of': 'KR',
  'republic of korea': 'KR',
  "korea, democratic people's republic of": 'KP',
  'taiwan, province of china': 'TW',
  'taiwan, republic of china': 'TW',
  'viet nam': 'VN',
  'russian federation': 'RU',
  'iran, islamic republic of': 'IR',
  'united kingdom of great britain and northern ireland': 'GB',
  'great britain': 'GB',
  'hong kong sar china': 'HK',
  'macao': 'MO',
  'macau': 'MO',
  'czech republic': 'CZ',
  'moldova, republic of': 'MD',
  'tanzania, united republic of': 'TZ',
  'bolivia, plurinational state of': 'BO',
  'venezuela, bolivarian republic of': 'VE',
  "lao people's democratic republic": 'LA',
  'syrian arab republic': 'SY',
  'palestine, state of': 'PS',
  'macedonia, the former yugoslav republic of': 'MK',
  'north macedonia, republic of': 'MK',
  'congo, the democratic republic of the': 'CD',
  'micronesia, federated states of': 'FM',
  'virgin islands, british': 'VG',
  'virgin islands, u.s.': 'VI',
  'turkey': 'TR',
  'swaziland': 'SZ',
  'holy see (vatican city state)': 'VA',
  "cote d'ivoire": 'CI',
  'brunei darussalam': 'BN',
  'cabo verde': 'CV',
};
for (const [name, cc] of Object.entries(ALIASES)) byName.set(normalise(name), cc);

function normalise(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[’]/g, "'").replace(/\s+/g, ' ').trim().toLowerCase();
}

/** True for an assigned ISO 3166-1 alpha-2 code (upper case). */
export function isCountryCode(cc: string): boolean {
  return codes.has(cc);
}

/** English country name (CLDR or ISO spelling) → alpha-2 code, or null. */
export function countryCodeFromName(name: string): string | null {
  return byName.get(normalise(name)) ?? null;
}
