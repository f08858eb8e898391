// The dashboard's API types are generated from the OpenAPI document, never written by hand:
// this fails when the committed types drift from the document (run npm run generate:ui-client).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { UI_CLIENT_TYPES, generateUiClientTypes } from '../../scripts/generate-ui-client.ts';

describe('dashboard API client', () => {
  it('matches what the OpenAPI document generates', async () => {
    assert.equal(readFileSync(UI_CLIENT_TYPES, 'utf8'), await generateUiClientTypes(), 'run `npm run generate:ui-client` after an API change');
  });
});
