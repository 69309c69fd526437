//! The articles' worked examples as widget presets: corpus text, the tokenizer settings that
//! reproduce each article's numbers, and a Portuguese label. Only inputs live here.
//!
//! The two articles tokenize differently: "modelagem-de-sequencias" keeps accents and splits
//! "Mostre-me"; "prestando-atencao" strips accents (não → nao).

use crate::attention::AttentionInputs;
use crate::error::Result;
use crate::matrix::Matrix;
use crate::text::tokenizer::TokenizerOptions;

use super::ngram::{NgramModel, NgramOptions, VocabularyOrder};
use super::votes::SkipPairModel;

/// The vocabulary size of the sparsity example (|V| = 50 000).
pub const ARTICLE_VOCABULARY_SIZE: usize = 50_000;

/// A corpus for the N-gram widgets.
#[derive(Clone, Debug, PartialEq)]
pub struct NgramPreset {
    /// Stable id for `data-preset`.
    pub id: &'static str,
    /// Portuguese label for the preset menu.
    pub label: &'static str,
    /// One text per document.
    pub documents: &'static [&'static str],
    /// Tokenizer: lowercase.
    pub lowercase: bool,
    /// Tokenizer: remove accents (não → nao).
    pub strip_accents: bool,
    /// Put `<START>` before each document.
    pub start: bool,
    /// Put `<END>` after each document.
    pub end: bool,
    /// The article's row/column order, or `None` for first appearance.
    pub vocabulary: Option<&'static [&'static str]>,
}

impl NgramPreset {
    /// The options that reproduce the article (bigrams, punctuation removed, hyphens split).
    pub fn options(&self) -> NgramOptions {
        NgramOptions {
            tokenizer: TokenizerOptions {
                lowercase: self.lowercase,
                strip_accents: self.strip_accents,
                ..TokenizerOptions::default()
            },
            split_hyphens: true,
            start: self.start,
            end: self.end,
            context: 1,
            order: self.vocabulary.map_or(VocabularyOrder::FirstAppearance, |v| {
                VocabularyOrder::Given(v.iter().map(|w| w.to_string()).collect())
            }),
        }
    }

    /// The model of this preset.
    pub fn build(&self) -> Result<NgramModel> {
        NgramModel::build(self.documents, &self.options())
    }
}

/// Example 1 of "modelagem-de-sequencias": three commands, 1/3 each.
pub const THREE_COMMANDS: &[&str] = &[
    "Mostre-me meus diretórios, por favor.",
    "Mostre-me meus arquivos, por favor.",
    "Mostre-me minhas fotos, por favor.",
];

/// Example 2 of "modelagem-de-sequencias": eight documents with real variation.
pub const EIGHT_DOCUMENTS: &[&str] = &[
    "Mostre-me meus documentos importantes.",
    "Mostre-me meus arquivos recentes, por favor.",
    "Por favor mostre meus documentos financeiros.",
    "Mostre-me minhas fotos favoritas urgentemente.",
    "Preciso ver meus documentos de trabalho.",
    "Mostre meus arquivos de projeto imediatamente.",
    "Por favor encontre meus documentos fiscais.",
    "Gostaria de ver meus arquivos pessoais agora.",
];

/// Every N-gram corpus of the articles, in their order.
pub const NGRAM_PRESETS: &[NgramPreset] = &[
    NgramPreset {
        id: "tres-comandos",
        label: "três comandos (Mostre-me meus diretórios…)",
        documents: THREE_COMMANDS,
        lowercase: true,
        strip_accents: false,
        start: false,
        end: false,
        vocabulary: Some(&[
            "mostre",
            "me",
            "meus",
            "minhas",
            "diretórios",
            "arquivos",
            "fotos",
            "por",
            "favor",
        ]),
    },
    NgramPreset {
        id: "oito-documentos",
        label: "oito documentos com <START>",
        documents: EIGHT_DOCUMENTS,
        lowercase: true,
        strip_accents: false,
        start: true,
        end: false,
        vocabulary: None,
    },
];

/// The N-gram preset with this id.
pub fn ngram_preset(id: &str) -> Option<&'static NgramPreset> {
    NGRAM_PRESETS.iter().find(|p| p.id == id)
}

/// A weighted corpus for the skip-pair (votes) widgets.
#[derive(Clone, Debug, PartialEq)]
pub struct VotePreset {
    /// Stable id for `data-preset`.
    pub id: &'static str,
    /// Portuguese label for the preset menu.
    pub label: &'static str,
    /// One text per document.
    pub documents: &'static [&'static str],
    /// One weight per document.
    pub weights: &'static [f32],
    /// Tokenizer: remove accents (não → nao).
    pub strip_accents: bool,
    /// Test prefixes the article discusses (the last word is w_t).
    pub prefixes: &'static [&'static str],
}

impl VotePreset {
    /// Lowercase, punctuation removed, accents as the article does.
    pub fn tokenizer(&self) -> TokenizerOptions {
        TokenizerOptions { strip_accents: self.strip_accents, ..TokenizerOptions::default() }
    }

    /// The model of this preset.
    pub fn train(&self) -> Result<SkipPairModel> {
        let docs: Vec<(&str, f32)> =
            self.documents.iter().copied().zip(self.weights.iter().copied()).collect();
        SkipPairModel::train(&docs, &self.tokenizer())
    }
}

/// Every skip-pair corpus of the articles.
pub const VOTE_PRESETS: &[VotePreset] = &[
    VotePreset {
        id: "log-programa-bateria",
        label: "log do programa / da bateria (ele foi / ele acabou)",
        documents: &[
            "Verifique o log do programa e descubra se ele foi executado, por favor.",
            "Verifique o log da bateria e descubra se ele acabou, por favor.",
        ],
        weights: &[0.5, 0.5],
        strip_accents: false,
        prefixes: &[
            "Verifique o log do programa e descubra se ele",
            "Verifique o log da bateria e descubra se ele",
            "Verifique o log do programa e descubra se ele foi executado",
        ],
    },
    VotePreset {
        id: "log-ele-ela",
        label: "dois documentos (ele foi executado / ela acabou)",
        documents: &[
            "Verifique o log do programa e descubra se ele foi executado, por favor.",
            "Verifique o log da bateria e descubra se ela acabou, por favor.",
        ],
        weights: &[0.5, 0.5],
        strip_accents: true,
        prefixes: &[
            "Verifique o log do programa e descubra se ele foi executado",
            "Verifique o log da bateria e descubra se ela acabou",
        ],
    },
    VotePreset {
        id: "cinco-documentos",
        label: "cinco documentos (programa, bateria, resultados)",
        documents: &[
            "Verifique o log do programa e descubra se ele foi executado, por favor.",
            "Verifique o log da bateria e descubra se ela acabou, por favor.",
            "O programa foi executado com sucesso, por isso não precisa verificar novamente.",
            "A bateria foi substituída, por isso está funcionando corretamente.",
            "Ele executou o programa, por isso obteve os resultados esperados.",
        ],
        weights: &[0.2, 0.2, 0.2, 0.2, 0.2],
        strip_accents: true,
        prefixes: &["Verifique se o programa foi executado", "Verifique se ele foi executado"],
    },
];

/// The vote preset with this id.
pub fn vote_preset(id: &str) -> Option<&'static VotePreset> {
    VOTE_PRESETS.iter().find(|p| p.id == id)
}

/// Inputs of a single query attending over a masked sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedAttentionPreset {
    /// Embeddings, one row per token.
    pub x: Matrix,
    /// W^Q (d × d_k).
    pub w_q: Matrix,
    /// W^K (d × d_k).
    pub w_k: Matrix,
    /// W^V (d × d_v).
    pub w_v: Matrix,
    /// The query position.
    pub t: usize,
    /// One weight per token.
    pub mask: Vec<f32>,
}

/// "Mascaramento em corpus realista" (prestando-atencao): 5 tokens, d = 4, d_k = 3, query t = 4,
/// mask [1, 0, 1, 0, 1].
pub fn masked_embeddings_example() -> MaskedAttentionPreset {
    let m = |rows: &[[f32; 3]]| Matrix::from_rows(rows).expect("4×3 literal");
    MaskedAttentionPreset {
        x: Matrix::from_rows(&[
            [0.2, -0.3, 0.1, 0.5],
            [0.4, 0.1, -0.2, 0.3],
            [-0.1, 0.5, 0.3, 0.2],
            [0.6, 0.2, -0.4, 0.1],
            [0.3, 0.4, 0.2, -0.1],
        ])
        .expect("5×4 literal"),
        w_q: m(&[[0.1, 0.2, 0.3], [0.4, 0.5, 0.1], [0.2, 0.3, 0.4], [0.5, 0.1, 0.2]]),
        w_k: m(&[[0.3, 0.2, 0.1], [0.1, 0.4, 0.3], [0.5, 0.2, 0.3], [0.2, 0.1, 0.5]]),
        w_v: m(&[[0.2, 0.3, 0.1], [0.4, 0.2, 0.3], [0.1, 0.5, 0.2], [0.3, 0.1, 0.4]]),
        t: 4,
        mask: vec![1.0, 0.0, 1.0, 0.0, 1.0],
    }
}

/// The scores s₄ the article prints for that example (computed from a wrong q₄ and K):
/// kept to show what its mask would have given.
pub const ARTICLE_MASKED_SCORES: [f32; 5] = [0.0729, 0.1039, 0.1501, 0.0592, 0.1327];

/// "Exemplo numérico: atenção com máscara" (prestando-atencao): three words, d = 4, d_k = 3,
/// no mask applied despite the title.
pub fn three_word_attention() -> AttentionInputs {
    let m = |rows: &[[f32; 3]]| Matrix::from_rows(rows).expect("4×3 literal");
    AttentionInputs {
        x: Matrix::from_rows(&[[0.2, -0.1, 0.5, 0.3], [0.5, 0.2, -0.3, 0.1], [-0.1, 0.4, 0.2, 0.6]])
            .expect("3×4 literal"),
        w_q: m(&[[0.1, 0.4, 0.2], [0.3, -0.2, 0.5], [0.6, 0.1, -0.3], [-0.1, 0.3, 0.4]]),
        w_k: m(&[[0.2, 0.1, 0.3], [0.5, -0.3, 0.2], [-0.1, 0.4, 0.2], [0.3, 0.2, -0.1]]),
        w_v: m(&[[0.1, -0.2, 0.5], [0.3, 0.4, 0.2], [0.2, 0.3, -0.1], [0.5, -0.1, 0.3]]),
        causal: false,
    }
}
