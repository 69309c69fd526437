//! Sorting, compiled once. std's sorts are generic over their comparator, so every
//! `sort_by` closure (and every `sort_unstable` element type) was a copy of driftsort or
//! ipnsort of its own in the wasm (the full build had 232 functions of `core::slice::sort`,
//! 60 KB). Here one sort, `sort_indices_by`, takes its comparator as a `&dyn Fn` and sorts
//! indices; the helpers below sort items by sorting their indices, then moving the items once.
//! Every helper is stable (equal items keep their order), so each gives exactly what std's
//! `sort_by` gave. A merge sort of our own rather than std's `sort_by` behind the `&dyn`:
//! 1.5 KB less gzipped wasm.

use std::cmp::Ordering;

/// Sorts `indices` by `cmp`, stable: the crate's one sort. A merge sort (insertion sort
/// below 16 items), O(n log n) comparisons and n / 2 of scratch.
#[inline(never)]
pub fn sort_indices_by(indices: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    let mut scratch = vec![0; indices.len() / 2];
    merge_sort(indices, &mut scratch, cmp);
}

fn merge_sort(v: &mut [usize], scratch: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    let n = v.len();
    if n <= 16 {
        for i in 1..n {
            let x = v[i];
            let mut j = i;
            while j > 0 && cmp(v[j - 1], x) == Ordering::Greater {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = x;
        }
        return;
    }
    let mid = n / 2;
    merge_sort(&mut v[..mid], scratch, cmp);
    merge_sort(&mut v[mid..], scratch, cmp);
    if cmp(v[mid - 1], v[mid]) != Ordering::Greater {
        return; // already in order
    }
    // The left half goes to scratch; the merge writes from the front, never past its reads.
    let left = &mut scratch[..mid];
    left.copy_from_slice(&v[..mid]);
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        // Right before left only if strictly smaller: stable.
        if cmp(left[i], v[j]) == Ordering::Greater {
            v[k] = v[j];
            j += 1;
        } else {
            v[k] = left[i];
            i += 1;
        }
        k += 1;
    }
    v[k..k + mid - i].copy_from_slice(&left[i..]);
}

/// 0..n sorted by `cmp` (stable).
pub fn order_by(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    sort_indices_by(&mut order, cmp);
    order
}

/// `values` ascending (what `sort_unstable` gave: equal values are indistinguishable).
#[inline(never)]
pub fn sort_usize(values: &mut [usize]) {
    sort_indices_by(values, &|a, b| a.cmp(&b));
}

/// Highest first by `f32::total_cmp` (NaN above +∞, −0 below +0), ties by lower index.
fn by_score_desc(scores: &[f32]) -> impl Fn(usize, usize) -> Ordering + '_ {
    |a, b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b))
}

/// The indices of `scores`, highest first (`f32::total_cmp`), ties by lower index.
#[inline(never)]
pub fn rank_desc(scores: &[f32]) -> Vec<usize> {
    order_by(scores.len(), &by_score_desc(scores))
}

/// The first `n` of `rank_desc(scores)`. A small `n` (a sampler's top 40 of a 2 048-token
/// vocabulary, at every generated token) is kept in a sorted list of `n` while the scores
/// go by, without sorting them all.
#[inline(never)]
pub fn top_desc(scores: &[f32], n: usize) -> Vec<usize> {
    let cmp = by_score_desc(scores);
    if n > 64 || n >= scores.len() {
        let mut order = rank_desc(scores);
        order.truncate(n);
        return order;
    }
    let mut top: Vec<usize> = Vec::with_capacity(n + 1);
    for i in 0..scores.len() {
        // The order is total (ties by index), so i beats the last kept or comes after it.
        if top.len() == n && top.last().is_none_or(|&last| cmp(i, last) == Ordering::Greater) {
            continue;
        }
        let at = top.partition_point(|&j| cmp(j, i) == Ordering::Less);
        top.insert(at, i);
        top.truncate(n);
    }
    top
}

/// Sorts `items` by `cmp`, stable: std's `sort_by`, through the one sort.
pub fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = order_by(items.len(), &|a, b| cmp(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` ascending (for `Ord` items, what `sort` and `sort_unstable` gave).
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts `items` by `key`, computed once per item, stable: std's `sort_by_cached_key`.
pub fn sort_by_cached_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    let keys: Vec<K> = items.iter().map(key).collect();
    let order = order_by(items.len(), &|a, b| keys[a].cmp(&keys[b]));
    permute(items, order);
}

/// `(item, score)` pairs, highest score first (`f32::total_cmp`), ties in their order: std's
/// stable `sort_by(|a, b| b.1.total_cmp(&a.1))`.
pub fn sort_by_score_desc<T>(items: &mut [(T, f32)]) {
    let scores: Vec<f32> = items.iter().map(|p| p.1).collect();
    permute(items, rank_desc(&scores));
}

/// Puts `items[order[i]]` at i (`order` a permutation of the indices), following its cycles.
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Random indices of few distinct keys, so that ties are common.
    fn keys(seed: u64, n: usize) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        (0..n).map(|_| rng.below(7) as u32).collect()
    }

    #[test]
    fn sorts_indices_like_std_s_stable_sort() {
        for (seed, n) in [(1, 0), (2, 1), (3, 2), (4, 15), (5, 16), (6, 17), (7, 33), (8, 100), (9, 1000), (10, 4097)] {
            let k = keys(seed, n);
            let cmp = |a: usize, b: usize| k[a].cmp(&k[b]);
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by(|&a, &b| cmp(a, b));
            assert_eq!(order_by(n, &cmp), want, "n = {n}");
            // Descending keys: equal keys must still keep their index order.
            let rev = |a: usize, b: usize| k[b].cmp(&k[a]);
            want.sort_by(|&a, &b| rev(a, b));
            assert_eq!(order_by(n, &rev), want, "n = {n}, descending");
        }
        // Already sorted and reversed inputs.
        let mut v: Vec<usize> = (0..500).rev().collect();
        sort_usize(&mut v);
        assert_eq!(v, (0..500).collect::<Vec<_>>());
        sort_usize(&mut v);
        assert_eq!(v, (0..500).collect::<Vec<_>>());
    }

    #[test]
    fn items_move_with_their_keys_stably() {
        for (seed, n) in [(11, 0), (12, 1), (13, 20), (14, 300)] {
            let k = keys(seed, n);
            let mut items: Vec<(u32, String)> = k.iter().enumerate().map(|(i, &x)| (x, format!("item {i}"))).collect();
            let mut want = items.clone();
            want.sort_by_key(|p| std::cmp::Reverse(p.0));
            sort_by(&mut items, |a, b| b.0.cmp(&a.0));
            assert_eq!(items, want);
            let mut words: Vec<String> = k.iter().map(|x| format!("w{}", 9 - x)).collect();
            let mut want = words.clone();
            want.sort_by_cached_key(|w| w.len() + w.as_bytes()[1] as usize);
            sort_by_cached_key(&mut words, |w| w.len() + w.as_bytes()[1] as usize);
            assert_eq!(words, want);
            let mut plain = k.clone();
            let mut want = k.clone();
            want.sort_unstable();
            sort(&mut plain);
            assert_eq!(plain, want);
        }
    }

    #[test]
    fn permuting_puts_each_item_where_the_order_says() {
        let mut rng = Rng::new(31);
        for n in [0, 1, 2, 3, 10, 200] {
            // A random permutation: the indices sorted by random keys.
            let keys: Vec<u64> = (0..n).map(|_| rng.below(1 << 40)).collect();
            let order = order_by(n, &|a, b| keys[a].cmp(&keys[b]));
            let items: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            let mut moved = items.clone();
            permute(&mut moved, order.clone());
            assert_eq!(moved, order.iter().map(|&i| items[i].clone()).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn scores_rank_as_total_cmp_with_ties_by_index() {
        let nan = f32::NAN;
        let scores = [0.5, -0.0, 0.0, nan, f32::INFINITY, 0.5, f32::NEG_INFINITY, -nan, 0.5];
        let mut want: Vec<usize> = (0..scores.len()).collect();
        want.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        // NaN first, then +∞, the three 0.5 in index order, +0 before −0, −∞, then −NaN.
        assert_eq!(want, [3, 4, 0, 5, 8, 2, 1, 6, 7]);
        assert_eq!(rank_desc(&scores), want);
        for n in 0..=scores.len() + 1 {
            assert_eq!(top_desc(&scores, n), want[..n.min(scores.len())], "n = {n}");
        }
        let mut pairs: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
        let mut expected = pairs.clone();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1));
        sort_by_score_desc(&mut pairs);
        assert_eq!(pairs.iter().map(|p| p.0).collect::<Vec<_>>(), expected.iter().map(|p| p.0).collect::<Vec<_>>());
    }

    #[test]
    fn the_top_n_is_the_full_ranking_s_first_n() {
        let mut rng = Rng::new(21);
        for len in [0usize, 1, 5, 64, 65, 300, 2048] {
            // Few distinct values (ties by index), and ascending runs (every score a new best).
            let mut scores: Vec<f32> = (0..len).map(|_| (rng.next_f32() * 8.0).floor() / 8.0).collect();
            let full = rank_desc(&scores);
            for n in [0, 1, 2, 40, 64, 65, len.saturating_sub(1), len, len + 1] {
                assert_eq!(top_desc(&scores, n), full[..n.min(len)], "len = {len}, n = {n}");
            }
            scores.sort_by(f32::total_cmp);
            let full = rank_desc(&scores);
            assert_eq!(top_desc(&scores, 40), full[..40.min(len)], "ascending, len = {len}");
        }
    }
}
