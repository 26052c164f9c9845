// docs/grafana/durable-agent-dashboard.json imports into Grafana as it is: one Prometheus data source asked for on import,
// and every panel queries it. (The e2e test of the observability backends has Prometheus evaluate every expression.)
import { describe, expect, it } from 'vitest';
import { loadDashboard } from './support/observability.js';

const DATASOURCE = { type: 'prometheus', uid: '${DS_PROMETHEUS}' };

describe('the Grafana dashboard', () => {
  const dashboard = loadDashboard();
  const panels = dashboard.panels.filter((panel) => panel.type !== 'row');

  it('asks for one Prometheus data source on import', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.uid).toBe('durable-agent');
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    ]);
  });

  it('queries that data source in every panel, each query with an expression', () => {
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) {
      expect(panel.datasource, panel.title).toEqual(DATASOURCE);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        expect(target.datasource, panel.title).toEqual(DATASOURCE);
        expect(target.expr.trim(), panel.title).not.toBe('');
      }
      expect(new Set(panel.targets!.map((target) => target.refId)).size, panel.title).toBe(panel.targets!.length);
    }
  });

  it('gives every panel its own id and a place on the 24-column grid', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { title, gridPos } of dashboard.panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      expect(gridPos.w * gridPos.h, title).toBeGreaterThan(0);
    }
  });
});
