import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOW, assertColumns } from '../../printing/testing/table-assertions.js';
import { podTemplateTable } from './table.js';

describe('podTemplateTable', () => {
  it('has upstream columns', () => {
    assertColumns(podTemplateTable, [
      ['Name', 'string', 'name', 0],
      ['Containers', 'string', '', 0],
      ['Images', 'string', '', 0],
      ['Pod Labels', 'string', '', 0],
    ]);
  });

  it('prints containers, images and labels', () => {
    const pt = {
      metadata: { name: 'tpl' },
      template: {
        metadata: { labels: { tier: 'web', app: 'shop' } },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }, { name: 'log', image: 'busybox' }] },
      },
    };
    assert.deepEqual(podTemplateTable.cells(pt, NOW), ['tpl', 'app,log', 'nginx:1.27,busybox', 'app=shop,tier=web']);
  });

  it('prints <none> for a template without labels', () => {
    const pt = { metadata: { name: 'bare' }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } };
    assert.deepEqual(podTemplateTable.cells(pt, NOW), ['bare', 'c', 'i', '<none>']);
  });
});
