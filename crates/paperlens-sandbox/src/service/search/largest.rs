//! The `n` largest of a list of ranking keys: one integer per candidate that orders as
//! the ranking does, so cuts and sorts compare plain integers.

/// Keeps the `n` largest keys, in no particular order.
pub fn keep_largest(keys: &mut Vec<u64>, n: usize) {
    if n == 0 {
        keys.clear();
    } else if keys.len() > n {
        let cut = keys.len() - n;
        keys.select_nth_unstable(cut);
        keys.drain(..cut);
    }
}

/// The `n` largest keys, largest first.
pub fn largest_first(mut keys: Vec<u64>, n: usize) -> impl Iterator<Item = u64> {
    keep_largest(&mut keys, n);
    keys.sort_unstable();
    keys.into_iter().rev()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_n_largest_largest_first() {
        let keys = vec![5, 1, 9, 3, 9, 7, 0];
        assert_eq!(largest_first(keys.clone(), 3).collect::<Vec<_>>(), [9, 9, 7]);
        assert_eq!(largest_first(keys.clone(), 0).count(), 0);
        assert_eq!(largest_first(keys, 10).collect::<Vec<_>>(), [9, 9, 7, 5, 3, 1, 0]);
    }
}
