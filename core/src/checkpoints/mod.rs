//! Checkpoints (issue 38): small problems a reader solves before reading on, each generated
//! from a seed by the same computations the widgets run, with its worked solution and the
//! likely slips diagnosed. One file per topic, as elsewhere in the core; `checkpoint` holds
//! what they share. The page generator (atencao-site) places them and prints them; behind the
//! crate's default feature `checkpoints`, which the wasm's dependencies turn off, so none of this
//! is compiled into it.

pub mod attention;
pub mod checkpoint;
pub mod decoder;
pub mod sequence;
pub mod text;
pub mod transformer;

pub use checkpoint::{Answer, Block, Checkpoint, Wrong};

/// A kind of checkpoint: its identifier (what content names), a short title, and its generator.
pub struct Kind {
    pub id: &'static str,
    pub title: &'static str,
    pub make: fn(u64) -> Checkpoint,
}

/// Every kind, by topic.
pub const KINDS: &[Kind] = &[
    Kind { id: "produto-escalar", title: "o produto escalar", make: text::dot_product },
    Kind { id: "norma", title: "a norma de um vetor", make: text::norm },
    Kind { id: "cosseno", title: "o cosseno entre dois documentos", make: text::cosine },
    Kind { id: "idf", title: "um IDF à mão", make: text::inverse_document_frequency },
    Kind { id: "tfidf-maior", title: "a palavra que mais pesa no TF-IDF", make: text::tfidf_largest },
    Kind { id: "celula-matmul", title: "um elemento de A·B", make: text::matmul_cell },
    Kind { id: "markov-dois-passos", title: "dois passos de Markov", make: sequence::markov_two_steps },
    Kind { id: "prob-bigrama", title: "a probabilidade de um bigrama", make: sequence::bigram_probability },
    Kind { id: "ngramas-possiveis", title: "quantos N-gramas cabem", make: sequence::possible_ngrams },
    Kind { id: "softmax-linha", title: "um peso do softmax", make: sequence::softmax_row },
    Kind { id: "relu-neuronio", title: "a saída de um neurônio ReLU", make: sequence::relu_neuron },
    Kind { id: "score-escalonado", title: "o score escalonado", make: attention::scaled_score },
    Kind { id: "mais-atendido", title: "para onde a query olha", make: attention::most_attended },
    Kind { id: "linha-mascarada", title: "uma linha mascarada", make: attention::masked_row },
    Kind { id: "saida-atencao", title: "a saída da atenção", make: attention::weighted_values },
    Kind { id: "formato-cabecas", title: "a forma depois de dividir as cabeças", make: transformer::head_shapes },
    Kind { id: "pe-valor", title: "um valor da codificação posicional", make: transformer::positional_value },
    Kind { id: "parametros-bloco", title: "os parâmetros de um bloco", make: transformer::block_parameters },
    Kind { id: "temperatura", title: "a temperatura", make: decoder::temperature },
    Kind { id: "top-p", title: "o top-p", make: decoder::top_p },
    Kind { id: "proximo-merge", title: "a próxima fusão do BPE", make: decoder::next_merge },
];

/// The kind named `id`.
pub fn kind(id: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.id == id)
}

/// The seed of instance `n` of the checkpoint placed as `placement` (FNV-1a of its name, then
/// one seed per instance): each placement has its own examples, the same on every build.
pub fn seed(placement: &str, n: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in placement.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}
