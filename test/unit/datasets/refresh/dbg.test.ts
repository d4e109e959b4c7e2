import { it } from 'vitest';
import { refreshDataset } from '../../../../src/datasets/refresh/job.js';
import { pfx2as, startMirror } from '../../../helpers/mirror.js';
import { tempDir, testContext } from '../helpers.js';
it('dbg', async () => {
  const m = await startMirror();
  m.put('/a.txt', pfx2as(64500));
  const ctx = testContext(tempDir(), { NETINTEL_SOURCE_PREFIXES: `${m.url}/a.txt` });
  console.log(await refreshDataset(ctx, 'prefixes'));
  await m.close();
});
