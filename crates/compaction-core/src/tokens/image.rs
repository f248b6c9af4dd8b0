//! What an image costs in a request, read from the image's own header.
//!
//! Providers bill images by pixel area after scaling them down to a maximum size, not by
//! the length of their base64 text. We decode only the first bytes of the data to read the
//! width and height of PNG, GIF and WebP (VP8X) images and apply Anthropic's published rule:
//! scale the long edge to at most 1568 px, then `width × height / 750` tokens, capped at
//! [`MAX_IMAGE_TOKENS`]. Images whose size we cannot read (JPEG, whose size sits after a
//! variable number of segments, or malformed data) cost [`DEFAULT_IMAGE_TOKENS`], the same
//! 1200 tokens pi charges (4800 characters / 4).
//!
//! Invariant: the result is between 1 and [`MAX_IMAGE_TOKENS`] and never reads more than
//! the first 40 base64 characters.

use crate::message::ImageContent;

/// Tokens charged for an image whose size is unknown.
pub const DEFAULT_IMAGE_TOKENS: u64 = 1200;
/// The most tokens one image can cost (a 1568 px-bounded, ~1.15 megapixel image).
pub const MAX_IMAGE_TOKENS: u64 = 1600;
const MAX_EDGE: u64 = 1568;

/// Tokens for one image block.
pub fn image_tokens(image: &ImageContent) -> u64 {
    match image_size(&image.data) {
        Some((width, height)) if width > 0 && height > 0 => area_tokens(width, height),
        Some(_) | None => DEFAULT_IMAGE_TOKENS,
    }
}

/// Tokens for an image of `width × height` pixels.
pub fn area_tokens(width: u64, height: u64) -> u64 {
    let long = width.max(height);
    let (width, height) = if long > MAX_EDGE {
        ((width * MAX_EDGE).div_ceil(long), (height * MAX_EDGE).div_ceil(long))
    } else {
        (width, height)
    };
    (width * height).div_ceil(750).clamp(1, MAX_IMAGE_TOKENS)
}

/// Width and height from the header of base64 PNG, GIF or WebP (VP8X) data.
pub fn image_size(base64: &str) -> Option<(u64, u64)> {
    let head = decode_prefix(base64.as_bytes().get(..40).unwrap_or(base64.as_bytes()));
    let le16 = |at: usize| -> Option<u64> {
        Some(u64::from(u16::from_le_bytes([*head.get(at)?, *head.get(at + 1)?])))
    };
    let le24 = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes([
            *head.get(at)?,
            *head.get(at + 1)?,
            *head.get(at + 2)?,
            0,
            0,
            0,
            0,
            0,
        ]))
    };
    let be32 = |at: usize| -> Option<u64> {
        let bytes: [u8; 4] = head.get(at..at + 4)?.try_into().ok()?;
        Some(u64::from(u32::from_be_bytes(bytes)))
    };
    if head.starts_with(b"\x89PNG\r\n\x1a\n") && head.get(12..16) == Some(b"IHDR") {
        return Some((be32(16)?, be32(20)?));
    }
    if head.starts_with(b"GIF8") {
        return Some((le16(6)?, le16(8)?));
    }
    if head.starts_with(b"RIFF") && head.get(8..16) == Some(b"WEBPVP8X") {
        return Some((le24(24)? + 1, le24(27)? + 1));
    }
    None
}

/// Decodes standard base64 until the first character outside the alphabet.
fn decode_prefix(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut buffer = 0u32;
    let mut bits = 0;
    for &ch in text {
        let value = match ch {
            b'A'..=b'Z' => ch - b'A',
            b'a'..=b'z' => ch - b'a' + 26,
            b'0'..=b'9' => ch - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => break,
        };
        buffer = (buffer << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Extra;

    fn image(data: &str) -> ImageContent {
        ImageContent { data: data.into(), mime_type: "image/png".into(), extra: Extra::new() }
    }

    // A 1×1 PNG and the header of a 1000×500 PNG, base64.
    const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";
    const PNG_1000X500: &str = "iVBORw0KGgoAAAANSUhEUgAAA+gAAAH0CAYAAAA";

    #[test]
    fn png_sizes_are_read() {
        assert_eq!(image_size(PNG_1X1), Some((1, 1)));
        assert_eq!(image_size(PNG_1000X500), Some((1000, 500)));
        assert_eq!(image_tokens(&image(PNG_1X1)), 1);
        assert_eq!(image_tokens(&image(PNG_1000X500)), 667); // 500000 / 750
    }

    #[test]
    fn gif_size_is_read() {
        // "GIF89a" + width 320 + height 200, little endian.
        assert_eq!(image_size("R0lGODlhQAHIAA=="), Some((320, 200)));
    }

    #[test]
    fn large_images_are_scaled_and_capped() {
        assert_eq!(area_tokens(4000, 3000), 1600);
        assert_eq!(area_tokens(3136, 100), (1568 * 50u64).div_ceil(750));
    }

    #[test]
    fn unknown_formats_cost_the_default() {
        assert_eq!(image_tokens(&image("/9j/4AAQSkZJRgABAQ")), DEFAULT_IMAGE_TOKENS);
        assert_eq!(image_tokens(&image("")), DEFAULT_IMAGE_TOKENS);
    }
}
