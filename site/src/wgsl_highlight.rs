//! A tiny WGSL highlighter: splits a kernel's source into classed pieces (comments,
//! keywords, types, attributes, numbers, built-in functions) that concatenate back to the
//! source exactly. The web layer turns them into spans of text nodes (never HTML); the page
//! generator highlights the WGSL excerpts quoted in the page prose with it.
//!
//! Standard library only: the wasm and the page generator share it.

/// What a piece of source is; `Plain` covers identifiers, punctuation and white space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Plain,
    Comment,
    Keyword,
    Type,
    Attribute,
    Number,
    Builtin,
}

impl Class {
    /// CSS class of the span, or `None` for plain text.
    pub fn css(self) -> Option<&'static str> {
        match self {
            Class::Plain => None,
            Class::Comment => Some("wgsl-comment"),
            Class::Keyword => Some("wgsl-keyword"),
            Class::Type => Some("wgsl-type"),
            Class::Attribute => Some("wgsl-attribute"),
            Class::Number => Some("wgsl-number"),
            Class::Builtin => Some("wgsl-builtin"),
        }
    }
}

const KEYWORDS: &[&str] = &[
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic", "discard",
    "else", "enable", "false", "fn", "for", "if", "let", "loop", "override", "requires", "return", "struct", "switch",
    "true", "var", "while",
    // Address spaces and access modes read like keywords in `var<storage, read>`.
    "function", "private", "read", "read_write", "storage", "uniform", "workgroup", "write",
];

const TYPES: &[&str] = &[
    "array", "atomic", "bool", "f16", "f32", "i32", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2",
    "mat4x3", "mat4x4", "ptr", "sampler", "u32", "vec2", "vec3", "vec4",
];

const BUILTINS: &[&str] = &[
    "abs", "all", "any", "arrayLength", "atomicAdd", "atomicLoad", "atomicStore", "ceil", "clamp", "cos", "dot", "exp",
    "exp2", "floor", "fma", "fract", "inverseSqrt", "log", "log2", "max", "min", "mix", "pow", "round", "select", "sign",
    "sin", "sqrt", "step", "storageBarrier", "tanh", "trunc", "workgroupBarrier",
];

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The source cut into classed pieces, in order; concatenated they give `source` back.
pub fn highlight(source: &str) -> Vec<(Class, &str)> {
    let mut pieces: Vec<(Class, &str)> = Vec::new();
    let mut i = 0;
    let mut plain_start = 0;
    while i < source.len() {
        let rest = &source[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let (class, len) = if rest.starts_with("//") {
            (Class::Comment, rest.find('\n').unwrap_or(rest.len()))
        } else if rest.starts_with("/*") {
            (Class::Comment, rest.find("*/").map_or(rest.len(), |end| end + 2))
        } else if c == '@' {
            let name = rest[1..].find(|ch: char| !is_ident_char(ch)).map_or(rest.len() - 1, |n| n);
            (Class::Attribute, 1 + name)
        } else if c.is_ascii_digit() && (i == 0 || !is_ident_char(source[..i].chars().next_back().unwrap_or(' '))) {
            (Class::Number, number_len(rest))
        } else if is_ident_start(c) && (i == 0 || !is_ident_char(source[..i].chars().next_back().unwrap_or(' '))) {
            let len = rest.find(|ch: char| !is_ident_char(ch)).unwrap_or(rest.len());
            let word = &rest[..len];
            let class = if KEYWORDS.contains(&word) {
                Class::Keyword
            } else if TYPES.contains(&word) {
                Class::Type
            } else if BUILTINS.contains(&word) && rest[len..].trim_start().starts_with('(') {
                Class::Builtin
            } else {
                Class::Plain
            };
            (class, len)
        } else {
            (Class::Plain, c.len_utf8())
        };
        if class == Class::Plain {
            i += len;
            continue;
        }
        if plain_start < i {
            pieces.push((Class::Plain, &source[plain_start..i]));
        }
        pieces.push((class, &source[i..i + len]));
        i += len;
        plain_start = i;
    }
    if plain_start < source.len() {
        pieces.push((Class::Plain, &source[plain_start..]));
    }
    pieces
}

/// Length of the number literal at the start of `s`: 16u, 0.0, 1e-5, 0x1F, 1.5f.
fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.len() > 1 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        return 2 + s[2..].find(|c: char| !(c.is_ascii_hexdigit() || c == '.')).unwrap_or(s.len() - 2);
    }
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    if i < b.len() && matches!(b[i], b'u' | b'i' | b'f' | b'h') {
        i += 1;
    }
    i
}

/// The source the GPU compiles and the wasm carries: `src` without its `//` comments (WGSL has
/// no strings, so `//` always starts one), each line's trailing space and the lines left empty.
/// The comments (about 6 KB of the wasm, gzipped) stay in the repository's files, which the
/// "por dentro" panel downloads when a reader opens it; stripped, a file must give this text.
pub fn without_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let code = line.split_once("//").map_or(line, |(code, _)| code).trim_end();
        if !code.trim().is_empty() {
            out.push_str(code);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(source: &str) -> Vec<(Class, String)> {
        highlight(source).into_iter().filter(|(c, _)| *c != Class::Plain).map(|(c, t)| (c, t.to_string())).collect()
    }

    #[test]
    fn pieces_give_the_source_back() {
        for source in [
            "",
            "fn main() {}\n",
            "// só um comentário com acentos: ção",
            "@compute @workgroup_size(16, 16, 1)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {\n  let x = 1e-5 + 0.5 * 16u; /* fim */\n}",
        ] {
            let joined: String = highlight(source).into_iter().map(|(_, t)| t).collect();
            assert_eq!(joined, source);
        }
    }

    #[test]
    fn classes_the_pieces_of_a_kernel() {
        let got = classes("@group(0) @binding(1) var<storage, read> a: array<f32>; // (m,k)\nlet n = 16u + 1.5e-3; workgroupBarrier();");
        let want = [
            (Class::Attribute, "@group"),
            (Class::Number, "0"),
            (Class::Attribute, "@binding"),
            (Class::Number, "1"),
            (Class::Keyword, "var"),
            (Class::Keyword, "storage"),
            (Class::Keyword, "read"),
            (Class::Type, "array"),
            (Class::Type, "f32"),
            (Class::Comment, "// (m,k)"),
            (Class::Keyword, "let"),
            (Class::Number, "16u"),
            (Class::Number, "1.5e-3"),
            (Class::Builtin, "workgroupBarrier"),
        ];
        let want: Vec<(Class, String)> = want.iter().map(|(c, t)| (*c, t.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn comments_go_and_the_code_stays() {
        let src = "// a kernel\n@compute @workgroup_size(64) // entry\nfn main() {\n\n    let x = 1.0; // one\n}\n";
        assert_eq!(without_comments(src), "@compute @workgroup_size(64)\nfn main() {\n    let x = 1.0;\n}\n");
        assert_eq!(without_comments(&without_comments(src)), without_comments(src), "stripping twice changes nothing");
    }

    #[test]
    fn digits_inside_names_and_names_that_are_not_calls_stay_plain() {
        assert_eq!(classes("tile_a1 x2 max"), vec![]);
        assert_eq!(classes("mat4x4"), vec![(Class::Type, "mat4x4".to_string())]);
        assert_eq!(classes("0x1F"), vec![(Class::Number, "0x1F".to_string())]);
    }

    #[test]
    fn every_shipped_kernel_round_trips_and_has_comments_and_keywords() {
        for dir in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")).unwrap() {
            let path = dir.unwrap().path();
            let source = std::fs::read_to_string(&path).unwrap();
            let pieces = highlight(&source);
            assert_eq!(pieces.iter().map(|(_, t)| *t).collect::<String>(), source, "{}", path.display());
            // A kernel has its entry point's attributes; a shared piece (`shared_*.wgsl`) only functions.
            let shared = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("shared_"));
            for class in [Class::Comment, Class::Keyword, Class::Attribute, Class::Type] {
                if shared && class == Class::Attribute {
                    continue;
                }
                assert!(pieces.iter().any(|(c, _)| *c == class), "{}: no {class:?}", path.display());
            }
        }
    }
}
