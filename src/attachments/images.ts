// Images with sharp (libvips): their size, and the variants the dashboard and clients show. A variant is a JPEG
// turned upright (EXIF orientation applied) and carrying NO metadata at all: sharp writes none unless
// withMetadata/keepExif is asked for, and nothing here asks, so a phone photo's GPS position never leaves
// through a preview.
//
// Nothing here holds the event loop: sharp runs libvips' decoding, resizing and encoding on libuv's thread pool
// (its calls are asynchronous), so the loop only hands buffers over and gets the result back.
//
// Decompression bombs: an image whose header claims more than MAX_IMAGE_PIXELS is refused at upload, and every
// decode is given the same limitInputPixels, so no request can make libvips allocate gigabytes.
import sharp from 'sharp';

/** sharp's own default limit (16383 × 16383, about 268 megapixels): above any phone camera, below a bomb. */
export const MAX_IMAGE_PIXELS = 0x3fff * 0x3fff;

export const VARIANTS = { preview: 1600, thumbnail: 320 } as const;
export type Variant = keyof typeof VARIANTS;

export type ImageSize = { width: number; height: number };

/**
 * An image's size as shown (upright), read from its header without decoding it: `too_large` when it has more
 * pixels than MAX_IMAGE_PIXELS, null when the header cannot be read (the file is kept, without variants).
 */
export async function readImageSize(input: Buffer): Promise<ImageSize | 'too_large' | null> {
  const meta = await sharp(input, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  if (!meta) return null;
  const { width, height } = meta;
  if (!width || !height) return null;
  if (width * (meta.pageHeight ?? height) > MAX_IMAGE_PIXELS) return 'too_large';
  // Orientations 5 to 8 turn the picture a quarter: width and height as it is shown swap.
  const turned = (meta.orientation ?? 1) >= 5;
  return turned ? { width: height, height: width } : { width, height };
}

/**
 * The variant of an image: at most VARIANTS[variant] pixels on its long side (never enlarged), upright, JPEG
 * without metadata (transparency on white, the first frame of an animation). Throws when the image cannot be
 * decoded (truncated, corrupt, or a codec sharp's build lacks, such as HEVC for HEIC): the file has no variants.
 */
export async function renderVariant(input: Buffer, variant: Variant): Promise<Buffer> {
  const side = VARIANTS[variant];
  return sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'truncated' })
    .rotate()
    .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 82, mozjpeg: true })
    .toBuffer();
}
