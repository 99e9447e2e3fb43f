// Grid clustering of the map's markers, by pixel distance at the zoom on display: the points
// are projected to pixels, put in square cells of `cellPx`, and a cell holding more than one
// point is drawn as one marker with its count (placed at their mean). Neighbouring cells are
// then merged when their markers would overlap (centres closer than `cellPx`), so two sites
// on either side of a cell border do not draw two touching markers.
//
// Written here rather than taken from leaflet.markercluster: that plugin patches Leaflet's
// global object and its React wrappers follow react-leaflet's majors late, while what the
// map needs (a few hundred sites at most, a count, a zoom on click) is these forty lines,
// pure and tested without a browser.

export interface Pixel {
  x: number;
  y: number;
}

export interface Cluster<T> {
  items: T[];
  /** Mean of the items' pixels. */
  center: Pixel;
}

export function clusterByGrid<T>(items: readonly T[], project: (item: T) => Pixel, cellPx: number): Cluster<T>[] {
  const cells = new Map<string, { items: T[]; sx: number; sy: number }>();
  for (const item of items) {
    const p = project(item);
    const key = cellPx > 0 ? `${Math.floor(p.x / cellPx)}:${Math.floor(p.y / cellPx)}` : `${p.x}:${p.y}:${cells.size}`;
    const cell = cells.get(key) ?? { items: [], sx: 0, sy: 0 };
    cell.items.push(item);
    cell.sx += p.x;
    cell.sy += p.y;
    cells.set(key, cell);
  }
  let clusters: Cluster<T>[] = [...cells.values()].map((c) => ({ items: c.items, center: { x: c.sx / c.items.length, y: c.sy / c.items.length } }));
  if (cellPx <= 0) return clusters;
  // Merge markers that would still overlap, until none do (each merge lowers the count).
  for (let merged = true; merged; ) {
    merged = false;
    outer: for (let i = 0; i < clusters.length; i++) {
      for (let j = i + 1; j < clusters.length; j++) {
        const a = clusters[i];
        const b = clusters[j];
        if (Math.hypot(a.center.x - b.center.x, a.center.y - b.center.y) < cellPx) {
          const n = a.items.length + b.items.length;
          const center = { x: (a.center.x * a.items.length + b.center.x * b.items.length) / n, y: (a.center.y * a.items.length + b.center.y * b.items.length) / n };
          clusters = [...clusters.slice(0, i), { items: [...a.items, ...b.items], center }, ...clusters.slice(i + 1, j), ...clusters.slice(j + 1)];
          merged = true;
          break outer;
        }
      }
    }
  }
  return clusters;
}
