// Converts Nigeria's outline from Natural Earth 1:10m (npm world-atlas@2,
// public domain) to RFC 7946 GeoJSON: outer rings counter-clockwise, holes
// clockwise, 6 decimals. Run once: npm install world-atlas@2 topojson-client@3
// && node scripts/outline.js > testdata/nigeria-outline.geojson
const topo = require('topojson-client');
const w = require('world-atlas/countries-10m.json');
const ng = topo.feature(w, w.objects.countries).features.find(f => f.properties.name === 'Nigeria');
const r6 = v => Math.round(v * 1e6) / 1e6;
const area = ring => ring.reduce((s, p, i) => { const q = ring[(i + 1) % ring.length]; return s + p[0] * q[1] - q[0] * p[1]; }, 0) / 2;
const orient = (ring, ccw) => { const rr = ring.map(p => [r6(p[0]), r6(p[1])]); return (area(rr) > 0) === ccw ? rr : rr.reverse(); };
const poly = rings => rings.map((ring, i) => orient(ring, i === 0));
const g = ng.geometry;
const coordinates = g.type === 'Polygon' ? poly(g.coordinates) : g.coordinates.map(poly);
process.stdout.write(JSON.stringify({
  type: 'FeatureCollection',
  features: [{ type: 'Feature', id: ng.id, properties: { name: 'Nigeria', source: 'Natural Earth 1:10m Admin 0 countries v4.1.0 via npm world-atlas@2.0.2 (public domain)' }, geometry: { type: g.type, coordinates } }],
}) + '\n');
