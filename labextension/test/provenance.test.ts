/** The insertion an execute reply asks for: a `set_next_input` payload that carries cell metadata. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';

import { insertRequest } from '../src/provenance';

const prime = { session: 's1', entry: 'e1', model: 'scripted/m1' };

function reply(payload: unknown[], status = 'ok'): unknown {
  return { header: { msg_type: 'execute_reply' }, content: { status, payload } };
}

test('a set_next_input payload with metadata asks for a cell with that metadata', () => {
  const payload = { source: 'set_next_input', text: 'x = 1', replace: false, metadata: { prime } };
  const asked = insertRequest(reply([{ source: 'page' }, payload]));
  assert.deepEqual(asked, { text: 'x = 1', metadata: { prime } });
});

test('plain set_next_input, replacing the cell, other messages and failed replies ask for nothing', () => {
  assert.equal(insertRequest(reply([{ source: 'set_next_input', text: 'x', replace: false }])), null);
  assert.equal(insertRequest(reply([{ source: 'set_next_input', text: 'x', replace: true, metadata: { prime } }])), null);
  assert.equal(insertRequest(reply([{ source: 'set_next_input', text: 'x', metadata: { prime } }], 'error')), null);
  assert.equal(insertRequest({ header: { msg_type: 'stream' }, content: {} }), null);
  assert.equal(insertRequest(null), null);
});
