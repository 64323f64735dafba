//! The `n` largest of a list of ranking keys: one integer per candidate that orders as
//! the ranking does, so the cuts compare plain integers.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_n_largest() {
        let largest = |n| -> Vec<u64> {
            let mut keys = vec![5, 1, 9, 3, 9, 7, 0];
            keep_largest(&mut keys, n);
            keys.sort_unstable();
            keys
        };
        assert_eq!(largest(3), [7, 9, 9]);
        assert!(largest(0).is_empty());
        assert_eq!(largest(10), [0, 1, 3, 5, 7, 9, 9]);
    }
}
