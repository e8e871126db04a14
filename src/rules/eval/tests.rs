use super::*;
use crate::rules::compile::flatten;

/// A random condition over atoms `0..8`, at most `depth` levels deep.
fn random_expr(rng: &mut crate::rules::synth::Rng, depth: u32) -> Expr {
    let leaf = depth == 0 || rng.chance(30);
    if leaf {
        return Expr::Atom(rng.below(8) as u32);
    }
    let children = |rng: &mut crate::rules::synth::Rng| {
        (0..rng.below(4))
            .map(|_| random_expr(rng, depth - 1))
            .collect()
    };
    match rng.below(3) {
        0 => Expr::All(children(rng)),
        1 => Expr::Any(children(rng)),
        _ => Expr::Not(Box::new(random_expr(rng, depth - 1))),
    }
}

/// In a compiled rule set, every node flagged [`Hot::COMPOUND`] reads
/// its condition from the flattened ops with the truth of its tree, for
/// random truths of its atoms (unknown ones included).
#[test]
fn compiled_compound_conditions_agree_with_their_trees() {
    let mut rng = crate::rules::synth::Rng::new(11);
    for seed in [1, 2, 3] {
        let set = crate::rules::synth::rule_set(1_000, seed);
        let c = crate::rules::compile::CompiledRules::new(&set);
        let atoms = c
            .nodes
            .iter()
            .filter_map(|n| n.cond.as_ref())
            .map(max_atom)
            .max()
            .map_or(0, |a| a as usize + 1);
        let mut compound = 0;
        for (h, node) in c.hot.iter().zip(&c.nodes) {
            if !h.has(Hot::COMPOUND) {
                continue;
            }
            compound += 1;
            let cond = node.cond.as_ref().expect("a compound node has a condition");
            for _ in 0..4 {
                let truths: Vec<Truth> = (0..atoms)
                    .map(|_| *rng.pick(&[Truth::True, Truth::False, Truth::Unknown]))
                    .collect();
                let f = |a: u32| truths[a as usize];
                assert_eq!(
                    ops_truth(&c.ops[h.atom as usize..], &f),
                    expr_truth(cond, &f),
                    "{cond:?}"
                );
            }
        }
        assert!(compound > 50, "seed {seed}: only {compound} compound nodes");
    }
}

fn max_atom(expr: &Expr) -> u32 {
    match expr {
        Expr::Atom(a) => *a,
        Expr::All(cs) | Expr::Any(cs) => cs.iter().map(max_atom).max().unwrap_or(0),
        Expr::Not(c) => max_atom(c),
    }
}

/// A flattened condition has the truth of its tree, for every truth of
/// its atoms (unknown ones included).
#[test]
fn flattened_conditions_agree_with_their_trees() {
    let mut rng = crate::rules::synth::Rng::new(5);
    for _ in 0..2_000 {
        let expr = random_expr(&mut rng, 4);
        let mut ops = Vec::new();
        flatten(&expr, &mut ops);
        assert_eq!(ops.first().map(|op| op.span()), Some(ops.len()));
        for _ in 0..8 {
            let truths: Vec<Truth> = (0..8)
                .map(|_| *rng.pick(&[Truth::True, Truth::False, Truth::Unknown]))
                .collect();
            let atom = |a: u32| truths[a as usize];
            assert_eq!(ops_truth(&ops, &atom), expr_truth(&expr, &atom), "{expr:?}");
        }
    }
}
