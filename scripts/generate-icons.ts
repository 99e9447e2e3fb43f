// Draws the app icons (public/icons/icon-192.png and icon-512.png): a white leaf on a
// full-bleed green square, so the same file serves as a regular and a maskable icon (the
// leaf stays inside the central safe circle). Plain node + zlib, no image library.
//   npx tsx scripts/generate-icons.ts
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const GREEN: Rgb = [0x2f, 0x9e, 0x44];
const WHITE: Rgb = [0xff, 0xff, 0xff];
type Rgb = [number, number, number];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Leaf in unit coordinates (0..1), axis tilted 45° towards the top right.
const HALF_LENGTH = 0.3;
const RADIUS = 0.36125;
const OFFSET = 0.20125; // RADIUS² - OFFSET² = HALF_LENGTH²: both arcs meet at the tips
const COS = Math.SQRT1_2;

function shade(x: number, y: number): Rgb {
  const dx = x - 0.5;
  const dy = 0.5 - y;
  const u = dx * COS + dy * COS; // along the leaf
  const v = -dx * COS + dy * COS; // across it
  const inLeaf = u * u + (v - OFFSET) ** 2 <= RADIUS ** 2 && u * u + (v + OFFSET) ** 2 <= RADIUS ** 2;
  const onVein = Math.abs(v) < 0.012 && u > -HALF_LENGTH * 0.85 && u < HALF_LENGTH * 0.7;
  const onStem = Math.abs(v) < 0.018 && u <= -HALF_LENGTH + 0.02 && u > -HALF_LENGTH - 0.09;
  if (onStem) return WHITE;
  if (inLeaf && !onVein) return WHITE;
  return GREEN;
}

export function drawIcon(size: number, samples = 4): Uint8Array {
  const out = new Uint8Array(size * size * 3);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0];
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const c = shade((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size);
          sum[0] += c[0];
          sum[1] += c[1];
          sum[2] += c[2];
        }
      }
      const i = (py * size + px) * 3;
      for (let k = 0; k < 3; k++) out[i + k] = Math.round(sum[k] / (samples * samples));
    }
  }
  return out;
}

const dir = path.resolve('public/icons');
fs.mkdirSync(dir, { recursive: true });
for (const size of [192, 512]) {
  const file = path.join(dir, `icon-${size}.png`);
  fs.writeFileSync(file, encodePng(size, size, drawIcon(size)));
  console.log(`${file} (${size}×${size})`);
}
