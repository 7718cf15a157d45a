// test/README.md, the map from each module to its tests, is generated; this
// fails when a test or a module came or went without `npm run test:map`.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { TEST_MAP, testMap } from '../../scripts/test-map.ts';

it('test/README.md maps every module to the tests that import it, as they are now', async () => {
  expect(readFileSync(TEST_MAP, 'utf8'), 'run npm run test:map').toBe(await testMap());
}, 60_000);
