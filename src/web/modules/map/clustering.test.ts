import { describe, expect, it } from 'vitest';
import { clusterByGrid, type Pixel } from './clustering';

const at = (id: string, x: number, y: number) => ({ id, p: { x, y } as Pixel });
const ids = (clusters: { items: { id: string }[] }[]) => clusters.map((c) => c.items.map((i) => i.id).sort().join('+')).sort();

describe('grid clustering of the markers', () => {
  it('groups points of one cell and keeps far ones apart, the group at their mean', () => {
    const clusters = clusterByGrid([at('a', 10, 10), at('b', 30, 20), at('c', 300, 300)], (i) => i.p, 44);
    expect(ids(clusters)).toEqual(['a+b', 'c']);
    expect(clusters.find((c) => c.items.length === 2)!.center).toEqual({ x: 20, y: 15 });
  });

  it('merges two markers that would touch across a cell border', () => {
    // 43 and 45 fall in cells 0 and 1 of 44 px, 2 px apart.
    expect(ids(clusterByGrid([at('a', 43, 10), at('b', 45, 10)], (i) => i.p, 44))).toEqual(['a+b']);
  });

  it('gives every point its own marker when the cell size is 0 (zoomed in fully), same place included', () => {
    expect(ids(clusterByGrid([at('a', 5, 5), at('b', 5, 5), at('c', 6, 5)], (i) => i.p, 0))).toEqual(['a', 'b', 'c']);
  });
});
