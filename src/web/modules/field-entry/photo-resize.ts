// Shrinks a photo on the phone before it is stored: at most LONG_SIDE pixels on its long side,
// WebP (JPEG where the browser cannot encode WebP) at about 80 % quality. A 12-megapixel
// camera photo of 4 MB becomes a few hundred KB, which the outbox keeps and sends over a weak
// link. Drawing on a canvas also turns the picture upright and leaves its metadata (the GPS
// position among them) behind; the server strips them again anyway. Loaded on first use only:
// the site sheet does not carry it until a photo is chosen.

export const LONG_SIDE = 1600;
export const QUALITY = 0.8;

export interface ShrunkPhoto {
  type: 'image/webp' | 'image/jpeg';
  data: ArrayBuffer;
  width: number;
  height: number;
}

type Decoded = { source: CanvasImageSource; width: number; height: number; release: () => void };

async function decode(file: Blob): Promise<Decoded> {
  if (typeof createImageBitmap === 'function') {
    try {
      const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
      return { source: bitmap, width: bitmap.width, height: bitmap.height, release: () => bitmap.close() };
    } catch {
      // An engine without the options, or a format it only decodes through <img>: try that.
    }
  }
  const url = URL.createObjectURL(file);
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    return { source: image, width: image.naturalWidth, height: image.naturalHeight, release: () => undefined };
  } finally {
    URL.revokeObjectURL(url);
  }
}

function encode(canvas: HTMLCanvasElement | OffscreenCanvas, type: string): Promise<Blob | null> {
  if ('convertToBlob' in canvas) return canvas.convertToBlob({ type, quality: QUALITY }).catch(() => null);
  return new Promise((resolve) => canvas.toBlob(resolve, type, QUALITY));
}

/** The photo shrunk and re-encoded; rejects when the browser cannot read the file as an image. */
export async function shrinkPhoto(file: Blob): Promise<ShrunkPhoto> {
  const decoded = await decode(file);
  try {
    if (!decoded.width || !decoded.height) throw new Error('Empty image');
    const scale = Math.min(1, LONG_SIDE / Math.max(decoded.width, decoded.height));
    const width = Math.max(1, Math.round(decoded.width * scale));
    const height = Math.max(1, Math.round(decoded.height * scale));
    const canvas: HTMLCanvasElement | OffscreenCanvas =
      typeof OffscreenCanvas === 'function' ? new OffscreenCanvas(width, height) : Object.assign(document.createElement('canvas'), { width, height });
    const context = canvas.getContext('2d') as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D | null;
    if (!context) throw new Error('No 2D context');
    // A transparent PNG on white, as the server does.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    context.imageSmoothingQuality = 'high';
    context.drawImage(decoded.source, 0, 0, width, height);
    // A browser that cannot encode WebP gives PNG instead: then JPEG.
    let blob = await encode(canvas, 'image/webp');
    if (blob?.type !== 'image/webp') blob = await encode(canvas, 'image/jpeg');
    if (!blob || (blob.type !== 'image/jpeg' && blob.type !== 'image/webp')) throw new Error('Cannot encode');
    return { type: blob.type as ShrunkPhoto['type'], data: await blob.arrayBuffer(), width, height };
  } finally {
    decoded.release();
  }
}
