//! Every widget of the site, by topic (the same folders as `core`): `vectors`, `text`,
//! `sequence`, `attention`, `transformer`, `modern`, `decoder`, `train`, and `bench` (the compute page). The kit
//! they are made of is `web::kit`; this module is the registry that names them.

pub mod attention;
#[cfg(feature = "articles-sequences")]
pub mod bench;
#[cfg(any(feature = "models", feature = "resident"))]
pub mod decoder;
#[cfg(feature = "modern")]
pub mod modern;
pub mod sequence;
#[cfg(feature = "articles-sequences")]
pub mod text;
#[cfg(feature = "resident")]
pub mod train;
#[cfg(feature = "articles-attention")]
pub mod transformer;
#[cfg(feature = "articles-sequences")]
pub mod vectors;

use std::rc::Rc;

use web_sys::{Element, HtmlElement};

use crate::web::kit::attributes::{self, Attributes};
use crate::web::kit::{show_error, state, Ctx, Widget, WidgetKind};

/// The article widgets of vectors, text and sequences, and the benchmark (the crate's feature
/// `articles-sequences`): each pairs its documentation (name, title, summary, attributes,
/// declared once in `site::widgets`) with its mount function.
#[cfg(feature = "articles-sequences")]
pub const SEQUENCES: &[WidgetKind] = &[
    vectors::vectors::KIND,
    vectors::dot_product::KIND,
    vectors::matmul::KIND,
    vectors::one_hot::KIND,
    text::bow::KIND,
    text::tf::KIND,
    text::idf::KIND,
    text::tfidf::KIND,
    text::search::KIND,
    sequence::markov::KIND,
    sequence::transitions::KIND,
    sequence::sparsity::KIND,
    sequence::doc_vectors::KIND,
    sequence::likelihood::KIND,
    sequence::votes::KIND,
    sequence::vote_mask::KIND,
    sequence::mask_embeddings::KIND,
    sequence::ffn_detector::KIND,
    bench::matmul_bench::KIND,
];
#[cfg(not(feature = "articles-sequences"))]
pub const SEQUENCES: &[WidgetKind] = &[];

/// The article widgets of attention and the Transformer (the crate's feature
/// `articles-attention`; `site::widgets::ATTENTION_WIDGETS`).
#[cfg(feature = "articles-attention")]
pub const ATTENTION: &[WidgetKind] = &[
    attention::attention::KIND,
    attention::masked_softmax::KIND,
    attention::soft_dictionary::KIND,
    transformer::char_tokenizer::KIND,
    transformer::embedding::KIND,
    transformer::self_attention::KIND,
    transformer::scaling::KIND,
    transformer::multi_head::KIND,
    transformer::positional::KIND,
    transformer::shift::KIND,
    transformer::block::KIND,
    transformer::cross_attention::KIND,
    transformer::output_head::KIND,
];
#[cfg(not(feature = "articles-attention"))]
pub const ATTENTION: &[WidgetKind] = &[];

/// The widgets in the sequences' and the models' builds (`site::widgets::SHARED_WIDGETS`): an
/// article widget that a model page also has.
#[cfg(any(feature = "articles-sequences", feature = "models"))]
pub const SHARED: &[WidgetKind] = &[sequence::softmax_lab::KIND];
#[cfg(not(any(feature = "articles-sequences", feature = "models")))]
pub const SHARED: &[WidgetKind] = &[];

/// The widgets that run a model (the crate's feature `models`; `site::widgets::MODEL_WIDGETS`
/// names them, and a page that has one loads a build with them).
#[cfg(feature = "models")]
pub const MODELS: &[WidgetKind] = &[attention::gradient_check::KIND, decoder::bpe::KIND];
#[cfg(not(feature = "models"))]
pub const MODELS: &[WidgetKind] = &[];

/// Today's block part by part (the crate's feature `modern`; `site::widgets::MODERN_WIDGETS`):
/// the only widgets that run today's forward ops, in a build of their own.
#[cfg(feature = "modern")]
pub const MODERN: &[WidgetKind] = &[modern::rope::KIND, modern::rms_norm::KIND, modern::swiglu::KIND, modern::gqa::KIND];
#[cfg(not(feature = "modern"))]
pub const MODERN: &[WidgetKind] = &[];

/// The widgets whose model runs in the page's worker (the crate's feature `resident`;
/// `site::widgets::RESIDENT_WIDGETS`): the page has only their drawing.
#[cfg(feature = "resident")]
pub const RESIDENT: &[WidgetKind] = &[decoder::decoder::KIND, train::train::KIND];
#[cfg(not(feature = "resident"))]
pub const RESIDENT: &[WidgetKind] = &[];

/// Every widget kind of this build. The site, the embedding entry point and the catalogue read
/// it; the browser tests check that the full build holds every documented kind once.
pub fn registry() -> impl Iterator<Item = &'static WidgetKind> {
    SEQUENCES.iter().chain(ATTENTION).chain(SHARED).chain(MODELS).chain(RESIDENT).chain(MODERN)
}

pub fn find(name: &str) -> Option<&'static WidgetKind> {
    registry().find(|k| k.name() == name)
}

/// Mounts every `[data-widget]` under `root` that is not mounted yet.
pub fn mount_all(root: &Element, ctx: &Rc<Ctx>) {
    let Ok(nodes) = root.query_selector_all("[data-widget]") else { return };
    for slot in 0..nodes.length() {
        let Some(host) = nodes.item(slot).and_then(|n| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(n).ok()) else { continue };
        if host.has_attribute("data-state") {
            continue;
        }
        if let Some(widget) = mount_one(&host, ctx, slot as usize) {
            ctx.adopt(widget);
        }
    }
}

/// Builds the widget named by `host`'s `data-widget`, not yet computed (see `Ctx::adopt`),
/// with the warnings its settings raised and the reader's saved or linked inputs (`slot`:
/// its index among the page's widgets, which names its state); on failure `host` shows the
/// reason and None is returned.
pub fn mount_one(host: &HtmlElement, ctx: &Rc<Ctx>, slot: usize) -> Option<Rc<dyn Widget>> {
    let name = host.get_attribute("data-widget").unwrap_or_default();
    let attrs = Attributes::of(host, &name);
    let mounted = match find(&name) {
        Some(kind) => (kind.mount)(ctx, host, &attrs),
        // A kind of the other build (issue 36): the page chose its build by the widgets it had
        // when it loaded (`site::widgets::module_for`), and this one came later.
        None if crate::site::widgets::doc(&name).is_some() => {
            Err(format!("O widget «{name}» não está no módulo que esta página carregou, escolhido pelos widgets que ela tinha ao abrir: recarregue a página."))
        }
        None => Err(format!("Não existe widget chamado «{name}».")),
    };
    let warnings = attrs.into_warnings();
    match mounted {
        Ok(widget) => {
            crate::web::kit::fit_title(host);
            attributes::show_warnings(host, &warnings);
            Some(state::keep(host, &name, slot, widget))
        }
        Err(message) => {
            show_error(host, &message);
            None
        }
    }
}

