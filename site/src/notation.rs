//! Notation in plain strings, typeset: `W^Q` is W with a superscript Q, `d_k` is d with a
//! subscript k (`^{…}` and `_{…}` for longer ones). Widget titles and labels are written this
//! way and drawn as text with `<sup>` and `<sub>` (never HTML from a string); a pure function,
//! so it is tested natively.

/// A run of text and where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Sup(&'a str),
    Sub(&'a str),
}

/// Splits `text` into runs: `^x` / `_x` mark one character, `^{xy}` / `_{xy}` a group. A `^`
/// or `_` with nothing after it stays as it is.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < text.len() {
        let c = bytes[i];
        if c == b'^' || c == b'_' {
            let rest = &text[i + 1..];
            let (arg, used) = if let Some(group) = rest.strip_prefix('{') {
                match group.find('}') {
                    Some(end) => (&group[..end], end + 2),
                    None => ("", 0),
                }
            } else {
                match rest.chars().next() {
                    Some(ch) if !ch.is_whitespace() => (&rest[..ch.len_utf8()], ch.len_utf8()),
                    _ => ("", 0),
                }
            };
            if used > 0 && !arg.is_empty() {
                if start < i {
                    out.push(Piece::Text(&text[start..i]));
                }
                out.push(if c == b'^' { Piece::Sup(arg) } else { Piece::Sub(arg) });
                i += 1 + used;
                start = i;
                continue;
            }
        }
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    if start < text.len() {
        out.push(Piece::Text(&text[start..]));
    }
    out
}

/// The text as a screen reader should hear it and a test can read it: marks removed.
pub fn plain(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) | Piece::Sup(t) | Piece::Sub(t) => t,
        })
        .collect()
}

/// The text for a screen reader's label: marks become spaces ("W^Q" → "W Q").
pub fn spoken(text: &str) -> String {
    pieces(text)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t.to_string(),
            Piece::Sup(t) | Piece::Sub(t) => format!(" {t}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superscripts_subscripts_and_groups() {
        assert_eq!(pieces("Q = X·W^Q"), vec![Piece::Text("Q = X·W"), Piece::Sup("Q")]);
        assert_eq!(pieces("S = Q·Kᵀ/√d_k"), vec![Piece::Text("S = Q·Kᵀ/√d"), Piece::Sub("k")]);
        assert_eq!(pieces("W_{ff}^T x"), vec![Piece::Text("W"), Piece::Sub("ff"), Piece::Sup("T"), Piece::Text(" x")]);
        assert_eq!(pieces("a ^ b_"), vec![Piece::Text("a ^ b_")]);
        assert_eq!(pieces("x_é"), vec![Piece::Text("x"), Piece::Sub("é")]);
        assert_eq!(plain("W^Q e d_k"), "WQ e dk");
        assert_eq!(spoken("W^Q linha 1"), "W Q linha 1");
        assert_eq!(pieces(""), vec![]);
    }
}
