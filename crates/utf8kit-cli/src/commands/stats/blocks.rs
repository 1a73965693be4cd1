//! Unicode blocks, to say which scripts a text is written in.
//!
//! Ranges and names from the Unicode Character Database's `Blocks.txt`
//! (Unicode 16.0), reduced to the blocks that carry most of the world's
//! text; everything else is grouped under its plane.

/// `(first, last, name)`, sorted by `first`.
const BLOCKS: &[(u32, u32, &str)] = &[
    (0x0000, 0x007F, "Basic Latin"),
    (0x0080, 0x00FF, "Latin-1 Supplement"),
    (0x0100, 0x017F, "Latin Extended-A"),
    (0x0180, 0x024F, "Latin Extended-B"),
    (0x0250, 0x02AF, "IPA Extensions"),
    (0x02B0, 0x02FF, "Spacing Modifier Letters"),
    (0x0300, 0x036F, "Combining Diacritical Marks"),
    (0x0370, 0x03FF, "Greek and Coptic"),
    (0x0400, 0x04FF, "Cyrillic"),
    (0x0500, 0x052F, "Cyrillic Supplement"),
    (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"),
    (0x0700, 0x074F, "Syriac"),
    (0x0750, 0x077F, "Arabic Supplement"),
    (0x0780, 0x07BF, "Thaana"),
    (0x0900, 0x097F, "Devanagari"),
    (0x0980, 0x09FF, "Bengali"),
    (0x0A00, 0x0A7F, "Gurmukhi"),
    (0x0A80, 0x0AFF, "Gujarati"),
    (0x0B00, 0x0B7F, "Oriya"),
    (0x0B80, 0x0BFF, "Tamil"),
    (0x0C00, 0x0C7F, "Telugu"),
    (0x0C80, 0x0CFF, "Kannada"),
    (0x0D00, 0x0D7F, "Malayalam"),
    (0x0D80, 0x0DFF, "Sinhala"),
    (0x0E00, 0x0E7F, "Thai"),
    (0x0E80, 0x0EFF, "Lao"),
    (0x0F00, 0x0FFF, "Tibetan"),
    (0x1000, 0x109F, "Myanmar"),
    (0x10A0, 0x10FF, "Georgian"),
    (0x1100, 0x11FF, "Hangul Jamo"),
    (0x1200, 0x137F, "Ethiopic"),
    (0x13A0, 0x13FF, "Cherokee"),
    (0x1780, 0x17FF, "Khmer"),
    (0x1800, 0x18AF, "Mongolian"),
    (0x1E00, 0x1EFF, "Latin Extended Additional"),
    (0x1F00, 0x1FFF, "Greek Extended"),
    (0x2000, 0x206F, "General Punctuation"),
    (0x2070, 0x209F, "Superscripts and Subscripts"),
    (0x20A0, 0x20CF, "Currency Symbols"),
    (0x2100, 0x214F, "Letterlike Symbols"),
    (0x2150, 0x218F, "Number Forms"),
    (0x2190, 0x21FF, "Arrows"),
    (0x2200, 0x22FF, "Mathematical Operators"),
    (0x2300, 0x23FF, "Miscellaneous Technical"),
    (0x2500, 0x257F, "Box Drawing"),
    (0x2580, 0x259F, "Block Elements"),
    (0x25A0, 0x25FF, "Geometric Shapes"),
    (0x2600, 0x26FF, "Miscellaneous Symbols"),
    (0x2700, 0x27BF, "Dingbats"),
    (0x2E80, 0x2EFF, "CJK Radicals Supplement"),
    (0x3000, 0x303F, "CJK Symbols and Punctuation"),
    (0x3040, 0x309F, "Hiragana"),
    (0x30A0, 0x30FF, "Katakana"),
    (0x3100, 0x312F, "Bopomofo"),
    (0x3130, 0x318F, "Hangul Compatibility Jamo"),
    (0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"),
    (0x4E00, 0x9FFF, "CJK Unified Ideographs"),
    (0xA000, 0xA48F, "Yi Syllables"),
    (0xAC00, 0xD7AF, "Hangul Syllables"),
    (0xE000, 0xF8FF, "Private Use Area"),
    (0xF900, 0xFAFF, "CJK Compatibility Ideographs"),
    (0xFB50, 0xFDFF, "Arabic Presentation Forms-A"),
    (0xFE70, 0xFEFF, "Arabic Presentation Forms-B"),
    (0xFF00, 0xFFEF, "Halfwidth and Fullwidth Forms"),
    (0xFFF0, 0xFFFF, "Specials"),
    (0x1D400, 0x1D7FF, "Mathematical Alphanumeric Symbols"),
    (0x1F000, 0x1F02F, "Mahjong Tiles"),
    (0x1F300, 0x1F5FF, "Miscellaneous Symbols and Pictographs"),
    (0x1F600, 0x1F64F, "Emoticons"),
    (0x1F680, 0x1F6FF, "Transport and Map Symbols"),
    (0x1F900, 0x1F9FF, "Supplemental Symbols and Pictographs"),
    (0x20000, 0x2A6DF, "CJK Unified Ideographs Extension B"),
];

/// Index of `c`'s block in [`name`]'s numbering: a listed block, or one of
/// the per-plane catch-alls after them.
pub fn index(c: char) -> usize {
    let cp = u32::from(c);
    let at = BLOCKS.partition_point(|&(first, _, _)| first <= cp);
    match at.checked_sub(1).map(|i| (i, BLOCKS[i])) {
        Some((i, (_, last, _))) if cp <= last => i,
        _ => BLOCKS.len() + plane_group(cp),
    }
}

/// How many indices [`index`] can return.
pub const COUNT: usize = BLOCKS.len() + PLANE_GROUPS.len();

const PLANE_GROUPS: [&str; 4] = [
    "other (Basic Multilingual Plane)",
    "other (Supplementary Multilingual Plane)",
    "other (Supplementary Ideographic Plane)",
    "other (planes 3-16)",
];

fn plane_group(cp: u32) -> usize {
    match cp >> 16 {
        0 => 0,
        1 => 1,
        2 => 2,
        _ => 3,
    }
}

/// The block's name for an index from [`index`].
pub fn name(index: usize) -> &'static str {
    match BLOCKS.get(index) {
        Some(&(_, _, name)) => name,
        None => PLANE_GROUPS
            .get(index - BLOCKS.len())
            .copied()
            .unwrap_or("other"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_sorted_and_disjoint() {
        for pair in BLOCKS.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:X?}");
        }
    }

    #[test]
    fn common_characters_land_in_their_blocks() {
        assert_eq!(name(index('a')), "Basic Latin");
        assert_eq!(name(index('ж')), "Cyrillic");
        assert_eq!(name(index('世')), "CJK Unified Ideographs");
        assert_eq!(name(index('😀')), "Emoticons");
        assert_eq!(name(index('\u{0800}')), "other (Basic Multilingual Plane)");
        assert_eq!(name(index('\u{10FFFF}')), "other (planes 3-16)");
        assert!(
            (0..0x11_0000)
                .filter_map(char::from_u32)
                .all(|c| index(c) < COUNT)
        );
    }
}
