//! Every widget of the site, by topic (the same folders as `core`): `vectors`, `text`,
//! `sequence`, `attention`, `transformer`, `decoder`, `train`, and `bench` (the compute page). The kit
//! they are made of is `web::kit`; this module is the registry that names them.

pub mod attention;
pub mod bench;
pub mod decoder;
pub mod sequence;
pub mod text;
pub mod train;
pub mod transformer;
pub mod vectors;

use std::rc::Rc;

use web_sys::{Element, HtmlElement};

use crate::web::kit::attributes::{self, Attributes};
use crate::web::kit::{show_error, state, Ctx, Widget, WidgetKind};

/// Every widget kind: each pairs its documentation (name, title, summary, attributes, declared
/// once in `site::widgets`) with its mount function. The site, the embedding entry point and
/// the catalogue read this list; the browser tests check it holds every documented kind once.
pub const REGISTRY: &[WidgetKind] = &[
    attention::attention::KIND,
    attention::masked_softmax::KIND,
    attention::soft_dictionary::KIND,
    attention::gradient_check::KIND,
    decoder::decoder::KIND,
    decoder::bpe::KIND,
    train::train::KIND,
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
    sequence::softmax_lab::KIND,
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
    bench::matmul_bench::KIND,
];

pub fn find(name: &str) -> Option<&'static WidgetKind> {
    REGISTRY.iter().find(|k| k.name() == name)
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

