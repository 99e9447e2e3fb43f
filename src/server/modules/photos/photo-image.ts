// What the server does to an uploaded image before storing it. The phone's word counts for
// nothing: the format is read from the bytes, the size from the image header before anything
// is decoded (a small PNG can declare 20,000 x 20,000 pixels and ask for gigabytes), and the
// image is decoded and re-encoded, which drops every metadata block (EXIF with the GPS position,
// XMP, IPTC, comments, ICC) and anything hidden after the picture.
import crypto from 'node:crypto';
import type { Metadata, Sharp, SharpOptions } from 'sharp';

/** Largest upload, in bytes (8 Mo). */
export const MAX_PHOTO_BYTES = 8 * 1024 * 1024;
/** Largest image decoded: beyond it, a decompression bomb or no phone photo. */
export const MAX_PHOTO_PIXELS = 40_000_000;
/** Long side of the stored image and of its thumbnail, in pixels. */
export const FULL_LONG_SIDE = 1600;
export const THUMBNAIL_LONG_SIDE = 320;
const FULL_QUALITY = 80;
const THUMBNAIL_QUALITY = 70;
// Optimised Huffman tables would keep every coefficient of the image in memory until the end of
// the encoding, for files a few per cent smaller: measured on 100 phone-sized photos, the
// process grew by 110 MB with them and by 45-65 MB without (and encoded a quarter faster).
const JPEG = { optimiseCoding: false } as const;

// sharp (libvips, about 11 MB once loaded) is loaded with the first photo: a server that never
// receives one never holds it.
// No operation cache: each upload is decoded once, and a cache of decoded images would only
// keep memory the next upload needs. Photos are processed one at a time per process (see
// photos.service.ts), each with libvips' own threads.
let sharpLoaded: Promise<(input: Buffer, options?: SharpOptions) => Sharp> | undefined;
function loadSharp() {
  sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return sharpLoaded;
}

export type SniffedFormat = 'jpeg' | 'png' | 'webp';

/** The format the bytes say, whatever the file name or the declared type; null for anything else. */
export function sniffFormat(bytes: Uint8Array): SniffedFormat | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((b, i) => bytes[i] === b)) return 'png';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}

export type ImageRefusal = 'unsupported' | 'tooManyPixels' | 'unreadable';

export class ImageRefusedError extends Error {
  constructor(public readonly reason: ImageRefusal) {
    super(reason);
  }
}

export interface ProcessedPhoto {
  image: Buffer;
  miniature: Buffer;
  largeur: number;
  hauteur: number;
  /** SHA-256 of the stored image, hex. */
  empreinte: string;
}

/**
 * Checks and re-encodes an upload: JPEG, PNG or WebP by their bytes, at most MAX_PHOTO_PIXELS,
 * turned upright (EXIF orientation applied before the EXIF goes), at most FULL_LONG_SIDE on its
 * long side, as a JPEG without metadata, and a thumbnail. Throws ImageRefusedError.
 */
export async function processPhoto(input: Buffer): Promise<ProcessedPhoto> {
  const format = sniffFormat(input);
  if (!format) throw new ImageRefusedError('unsupported');
  const sharp = await loadSharp();
  let header: Metadata;
  try {
    // Reads the header only; the limit is checked below, with our own figure and message.
    header = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    throw new ImageRefusedError('unreadable');
  }
  if (header.format !== format) throw new ImageRefusedError('unsupported');
  if (!header.width || !header.height) throw new ImageRefusedError('unreadable');
  if (header.width * header.height > MAX_PHOTO_PIXELS) throw new ImageRefusedError('tooManyPixels');

  try {
    // limitInputPixels again: the decoder itself refuses what the header check let through by mistake.
    const full = await sharp(input, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'error', sequentialRead: true })
      .autoOrient()
      .resize(FULL_LONG_SIDE, FULL_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
      // A transparent PNG gets a white background rather than black.
      .flatten({ background: '#ffffff' })
      .jpeg({ ...JPEG, quality: FULL_QUALITY })
      .toBuffer({ resolveWithObject: true });
    const miniature = await sharp(full.data, { sequentialRead: true })
      .resize(THUMBNAIL_LONG_SIDE, THUMBNAIL_LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ ...JPEG, quality: THUMBNAIL_QUALITY })
      .toBuffer();
    return {
      image: full.data,
      miniature,
      largeur: full.info.width,
      hauteur: full.info.height,
      empreinte: crypto.createHash('sha256').update(full.data).digest('hex'),
    };
  } catch {
    throw new ImageRefusedError('unreadable');
  }
}
