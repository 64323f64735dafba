//! Figures as real PNG files: a small bar chart per figure, RGB, written with stored
//! (uncompressed) deflate blocks so that no compression library is needed.

use crate::service::rng::Rng;

const WIDTH: usize = 320;
const HEIGHT: usize = 200;

/// The bar chart of figure `figure` of a paper, colored by its topic.
pub fn figure_png(key: &[u64], topic: usize) -> Vec<u8> {
    let mut rng = Rng::new(key);
    let palette = [
        [31, 119, 180],
        [255, 127, 14],
        [44, 160, 44],
        [214, 39, 40],
        [148, 103, 189],
        [140, 86, 75],
        [227, 119, 194],
        [127, 127, 127],
        [188, 189, 34],
        [23, 190, 207],
    ];
    let color = palette[topic % palette.len()];
    let mut pixels = vec![255u8; WIDTH * HEIGHT * 3];
    let mut paint = |x: usize, y: usize, rgb: [u8; 3]| {
        let at = (y * WIDTH + x) * 3;
        pixels[at..at + 3].copy_from_slice(&rgb);
    };
    for x in 20..WIDTH - 10 {
        paint(x, HEIGHT - 20, [0, 0, 0]);
    }
    for y in 10..HEIGHT - 20 {
        paint(20, y, [0, 0, 0]);
    }
    let bars = 4 + rng.below(5);
    let slot = (WIDTH - 40) / bars;
    for b in 0..bars {
        let height = 20 + rng.below(HEIGHT - 50);
        let left = 24 + b * slot + slot / 6;
        let right = 24 + (b + 1) * slot - slot / 6;
        for x in left..right.min(WIDTH - 10) {
            for y in (HEIGHT - 20 - height)..(HEIGHT - 20) {
                paint(x, y, color);
            }
        }
    }
    encode_rgb(WIDTH as u32, HEIGHT as u32, &pixels)
}

pub fn encode_rgb(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
    let row = width as usize * 3;
    let mut raw = Vec::with_capacity((row + 1) * height as usize);
    for line in pixels.chunks(row) {
        raw.push(0); // filter type None
        raw.extend_from_slice(line);
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5_552) {
        for &byte in chunk {
            a += byte as u32;
            b += a;
        }
        a %= 65_521;
        b %= 65_521;
    }
    (b << 16) | a
}

pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_and_adler_match_reference_values() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11e6_0398);
    }

    #[test]
    fn figure_is_a_valid_png() {
        let png = figure_png(&[1, 2, 3], 4);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(
            u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
            WIDTH as u32
        );
        let ihdr_crc = u32::from_be_bytes([png[29], png[30], png[31], png[32]]);
        assert_eq!(ihdr_crc, crc32(&png[12..29]));
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82]));
    }
}
