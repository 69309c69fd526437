//! The branches a reader made in one playground. Each is kept whole (its `History`: tokens,
//! draws, generator, attention), so returning to one gives back exactly its text with no pass
//! to run; and when one run from the prompt made it (one seed, one setting), a link describes
//! it (`BranchSpec`) and makes it again anywhere.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::format::format_pt;

use super::branches::{BranchSpec, Choice};
use super::sampling::SamplingOptions;
use super::session::History;
use super::tokenizer::TokenCodec;

/// Branches kept per playground (each holds its attention maps: up to a few MB).
pub const MAX_BRANCHES: usize = 12;

/// How a text was made when a single run from its prompt made it: the generator's seed and
/// the one setting of every draw.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub seed: u64,
    pub options: SamplingOptions,
}

impl Run {
    /// The run after one more generation with `options` from a generator at `seed` (the
    /// session's, after any reseed): the first tokens of a text start a run; a "Gerar" that
    /// starts the generator again (`reseed`) after tokens, or a step with other settings, ends it.
    pub fn after(run: Option<Run>, steps_before: usize, reseed: bool, seed: u64, options: SamplingOptions) -> Option<Run> {
        match (reseed, steps_before) {
            (_, 0) => Some(Run { seed, options }),
            (true, _) => None,
            (false, _) => run.filter(|r| r.options == options),
        }
    }
}

struct Record {
    history: History,
    parent: Option<usize>,
    /// The reader's choice where it leaves its parent.
    departs: Option<Choice>,
    run: Option<Run>,
}

/// One line of the tree the widget draws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchRow {
    /// What `go_to` takes.
    pub index: usize,
    /// "original", or the token and step where it departs.
    pub label: String,
    /// Its length and the log-probability the model gives its generated tokens.
    pub detail: String,
    pub current: bool,
    /// Steps from the original (indentation).
    pub depth: usize,
}

/// The branches of one playground, the current one among them.
#[derive(Default)]
pub struct BranchBook {
    records: Vec<Record>,
    current: usize,
}

impl BranchBook {
    /// Forgets every branch (a new prompt).
    pub fn clear(&mut self) {
        self.records.clear();
        self.current = 0;
    }

    /// The current branch is now `history`, made by `run` when one run made it. A text's first
    /// generated tokens start the book.
    pub fn keep(&mut self, history: &History, run: Option<Run>) {
        if self.records.is_empty() {
            if history.steps.is_empty() {
                return;
            }
            self.records.push(Record { history: history.clone(), parent: None, departs: None, run });
            self.current = 0;
            return;
        }
        if let Some(r) = self.records.get_mut(self.current) {
            r.history = history.clone();
            r.run = run;
        }
    }

    /// How the current branch was made, when one run made it.
    pub fn run(&self) -> Option<Run> {
        self.records.get(self.current).and_then(|r| r.run)
    }

    /// A new branch leaving the current one at `choice`; it becomes the current one, and
    /// `keep` stores it once generated.
    pub fn depart(&mut self, choice: Choice) -> Result<()> {
        let Some(parent) = self.records.get(self.current) else {
            return Err(ComputeError::Invalid("Gere um texto antes de escolher outro token.".into()));
        };
        if self.records.len() >= MAX_BRANCHES {
            return Err(ComputeError::Invalid(format!("Já são {MAX_BRANCHES} ramos: volte a um deles, ou recomece.")));
        }
        let record = Record { history: parent.history.clone(), parent: Some(self.current), departs: Some(choice), run: parent.run };
        self.records.push(record);
        self.current = self.records.len() - 1;
        Ok(())
    }

    /// Back to branch `index`: it becomes the current one; its history, exactly as kept.
    pub fn go_to(&mut self, index: usize) -> Result<History> {
        let record = self.records.get(index).ok_or_else(|| ComputeError::Invalid(format!("Não há ramo {}.", index + 1)))?;
        self.current = index;
        Ok(record.history.clone())
    }

    /// The tree in reading order (each branch under the one it leaves), labelled.
    pub fn rows(&self, tokenizer: &(impl TokenCodec + ?Sized)) -> Vec<BranchRow> {
        let mut rows = Vec::new();
        let mut stack: Vec<(usize, usize)> = (0..self.records.len()).rev().filter(|&i| self.records[i].parent.is_none()).map(|i| (i, 0)).collect();
        while let Some((index, depth)) = stack.pop() {
            let r = &self.records[index];
            let label = match r.departs {
                None => "original".to_string(),
                Some(c) => format!("«{}» no passo {}", tokenizer.label(c.token), c.step + 1),
            };
            let detail = format!("{} tokens · log-probabilidade {}", r.history.steps.len(), format_pt(r.history.log_probability() as f32, 2));
            rows.push(BranchRow { index, label, detail, current: index == self.current, depth });
            stack.extend((0..self.records.len()).rev().filter(|&i| self.records[i].parent == Some(index)).map(|i| (i, depth + 1)));
        }
        rows
    }

    /// The current branch as a link describes it (from `prompt`), when one run made it.
    pub fn link(&self, prompt: &str) -> Option<BranchSpec> {
        let r = self.records.get(self.current)?;
        let run = r.run?;
        Some(r.history.branch_spec(prompt, run.options)).filter(|spec| spec.seed == run.seed)
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::bpe::Bpe;
    use crate::decoder::session::Session;
    use crate::decoder::{DecoderConfig, DecoderWeights};
    use crate::executor::{block_on_ready, Cpu};

    fn generated(bpe: &Bpe, w: &Rc<DecoderWeights>, seed: u64, n: usize, options: &SamplingOptions) -> Session<crate::Matrix> {
        let mut s = Session::start(&Cpu, w.clone(), bpe, "o gato", seed).unwrap();
        for _ in 0..n {
            block_on_ready(s.step(&Cpu, options)).unwrap();
        }
        s
    }

    #[test]
    fn branches_are_kept_whole_in_a_tree_and_a_link_needs_one_run() {
        let (w, bpe) = (Rc::new(DecoderWeights::random(&DecoderConfig::tiny(), 3)), Bpe::from_merges(Vec::new()).unwrap());
        let options = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };
        let mut s = generated(&bpe, &w, 5, 6, &options);
        let mut book = BranchBook::default();
        book.keep(&History::new(&w.config, &bpe, "o gato", 5).unwrap(), None);
        assert!(book.rows(&bpe).is_empty(), "no generated token, no branch");
        let run = Run::after(None, 0, true, 5, options);
        book.keep(s.history(), run);
        let original = s.history().ids.clone();
        assert_eq!(book.link("o gato").unwrap(), s.history().branch_spec("o gato", options));

        // A branch at step 2, generated to the same length.
        let token = (s.history().steps[2].token + 1) % 200;
        book.depart(Choice { step: 2, token }).unwrap();
        block_on_ready(s.branch_and_generate(&Cpu, 2, token, &options, 3)).unwrap();
        book.keep(s.history(), book.run());
        assert_eq!(s.history().ids[..s.history().prompt_len + 2], original[..s.history().prompt_len + 2], "the prefix is kept");
        let rows = book.rows(&bpe);
        assert_eq!(rows.iter().map(|r| (r.index, r.depth, r.current)).collect::<Vec<_>>(), vec![(0, 0, false), (1, 1, true)]);
        assert!(rows[1].label.ends_with("no passo 3") && rows[0].label == "original", "{rows:?}");
        assert!(rows[1].detail.starts_with("6 tokens · log-probabilidade −"), "{}", rows[1].detail);
        let link = book.link("o gato").unwrap();
        assert_eq!(link.choices, vec![Choice { step: 2, token }]);

        // Back to the original: exactly its history.
        let back = book.go_to(0).unwrap();
        assert_eq!(back.ids, original);
        assert!(book.go_to(7).is_err());
        // A "Gerar" with another seed after tokens ends the run: no link.
        assert_eq!(Run::after(run, 6, true, 9, options), None);
        assert_eq!(Run::after(run, 6, false, 9, options), run, "a step with the same settings");
        assert_eq!(Run::after(run, 6, false, 9, SamplingOptions::default()), None);
        book.keep(&back, None);
        assert!(book.link("o gato").is_none());
    }

    #[test]
    fn the_book_holds_at_most_its_limit() {
        let (w, bpe) = (Rc::new(DecoderWeights::random(&DecoderConfig::tiny(), 3)), Bpe::from_merges(Vec::new()).unwrap());
        let s = generated(&bpe, &w, 1, 2, &SamplingOptions::default());
        let mut book = BranchBook::default();
        assert!(book.depart(Choice { step: 0, token: 1 }).is_err(), "nothing to branch from");
        book.keep(s.history(), None);
        for _ in 1..MAX_BRANCHES {
            book.depart(Choice { step: 0, token: 1 }).unwrap();
        }
        assert!(book.depart(Choice { step: 0, token: 1 }).unwrap_err().to_string().contains("12 ramos"));
        assert_eq!(book.rows(&bpe).iter().map(|r| r.depth).max(), Some(MAX_BRANCHES - 1), "each departs from the last");
    }
}
