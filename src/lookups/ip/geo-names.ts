// Country and continent names from codes, and the timezone fallback: everything /v1/ip derives
// offline from what the mmdb record holds. All memoised: the set of codes is small and fixed.
import tzLookup from '@photostructure/tz-lookup';

const REGION_NAMES = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' });

// Continent codes as mmdb data uses them → UN M.49 area codes, which Intl.DisplayNames names.
const CONTINENT_M49: Readonly<Record<string, string>> = {
  AF: '002', AN: 'AQ', AS: '142', EU: '150', NA: '003', OC: '009', SA: '005',
};

// Country → continent, for data without a continent field (the DB-IP flat layout). The GeoNames
// assignment, which MaxMind uses too (so both layouts agree): Russia in Europe, Turkey, Cyprus and
// the Caucasus in Asia, Central America and the Caribbean in North America.
const CONTINENT_COUNTRIES: Readonly<Record<string, string>> = {
  AF: 'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM TF',
  AS: 'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU: 'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA: 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};

const CONTINENT_OF = new Map<string, string>();
for (const [continent, list] of Object.entries(CONTINENT_COUNTRIES)) {
  for (const cc of list.split(' ')) CONTINENT_OF.set(cc, continent);
}
// Pseudo-codes older GeoIP data uses for addresses known only by region.
CONTINENT_OF.set('EU', 'EU');
CONTINENT_OF.set('AP', 'AS');

const countryNames = new Map<string, string | null>();
const continentNames = new Map<string, string | null>();

/** A usable ISO 3166-1 alpha-2 code in upper case, or null ("ZZ", "--" and junk are unknown). */
export function normaliseCountryCode(code: string | null): string | null {
  if (code === null || code.length !== 2) return null;
  const cc = code.toUpperCase();
  if (cc === 'ZZ' || !/^[A-Z]{2}$/.test(cc)) return null;
  return cc;
}

/** "US" → "United States"; null for a code Intl does not know. */
export function countryName(cc: string): string | null {
  let name = countryNames.get(cc);
  if (name === undefined) {
    name = REGION_NAMES.of(cc) ?? null;
    countryNames.set(cc, name);
  }
  return name;
}

/** The continent code from the data, else from the country. */
export function continentCode(dataCode: string | null, cc: string | null): string | null {
  if (dataCode !== null && CONTINENT_M49[dataCode.toUpperCase()] !== undefined) return dataCode.toUpperCase();
  return cc === null ? null : (CONTINENT_OF.get(cc) ?? null);
}

/** "NA" → "North America". */
export function continentName(code: string): string | null {
  let name = continentNames.get(code);
  if (name === undefined) {
    const m49 = CONTINENT_M49[code];
    name = m49 === undefined ? null : (REGION_NAMES.of(m49) ?? null);
    continentNames.set(code, name);
  }
  return name;
}

/**
 * Coordinates rounded to 4 decimals (about 11 m): enough for city-level data, and it drops the
 * float32 noise mmdb files carry (37.422000885009766 → 37.422).
 */
export function roundCoordinate(x: number | null): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  return Math.round(x * 1e4) / 1e4;
}

const TZ_CACHE_MAX = 65536;
const tzCache = new Map<number, string | null>();

/** IANA zone at the coordinates (offline polygon lookup), memoised per rounded point. */
export function timezoneAt(lat: number, lon: number): string | null {
  if (!(lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180)) return null;
  // Exact in a double: |lat·1e4| ≤ 9e5 and |lon·1e4| ≤ 1.8e6, so the key is below 2^53.
  const key = Math.round(lat * 1e4) * 4_000_000 + Math.round(lon * 1e4);
  let zone = tzCache.get(key);
  if (zone === undefined) {
    try {
      zone = tzLookup(lat, lon);
    } catch {
      zone = null;
    }
    // A full cache is simply dropped: the points of a city database repeat, so it refills fast.
    if (tzCache.size >= TZ_CACHE_MAX) tzCache.clear();
    tzCache.set(key, zone);
  }
  return zone;
}
