//! The rating fit against cases whose answer is known.

use othello_ladder::fit::{ELO_PER_NATURAL_UNIT, FitOptions, Results, Z_95, expected_score, fit};
use othello_sdk::SplitMix64;

/// The plain maximum likelihood (no virtual draws), anchored at entry 0.
fn plain(anchor: usize) -> FitOptions {
    FitOptions { anchor, anchor_rating: 0.0, virtual_draws_per_pair: 0.0 }
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

#[test]
fn a_hand_worked_chain_of_three_matches_the_closed_form() {
    // A (anchor) – B: B wins 25, draws 10, loses 5 of 40 (30 points).
    // B – C: C wins 10, draws 4, loses 6 of 20 (12 points). A and C never meet, so each
    // difference is the logit of its own score and the variances add along the chain.
    let mut results = Results::new(3);
    results.add_games(1, 0, 1.0, 25.0);
    results.add_games(1, 0, 0.5, 10.0);
    results.add_games(1, 0, 0.0, 5.0);
    results.add_games(2, 1, 1.0, 10.0);
    results.add_games(2, 1, 0.5, 4.0);
    results.add_games(2, 1, 0.0, 6.0);
    let fit = fit(&results, &plain(0));
    let [a, b, c] = [0, 1, 2].map(|i| fit.ratings[i].unwrap());

    let b_elo = 400.0 * (30.0f64 / 10.0).log10(); // 190.85
    let c_elo = b_elo + 400.0 * (12.0f64 / 8.0).log10(); // + 70.44
    let var_ab: f64 = 1.0 / (40.0 * 0.75 * 0.25); // 1 / (n p q), natural units
    let var_bc: f64 = 1.0 / (20.0 * 0.6 * 0.4);
    let b_error = Z_95 * var_ab.sqrt() * ELO_PER_NATURAL_UNIT;
    let c_error = Z_95 * (var_ab + var_bc).sqrt() * ELO_PER_NATURAL_UNIT;

    assert_eq!((a.elo, a.error), (0.0, 0.0), "the anchor is fixed");
    assert!(close(b.elo, b_elo, 1e-6), "{} vs {b_elo}", b.elo);
    assert!(close(c.elo, c_elo, 1e-6), "{} vs {c_elo}", c.elo);
    assert!(close(b.error, b_error, 1e-6), "{} vs {b_error}", b.error);
    assert!(close(c.error, c_error, 1e-6), "{} vs {c_error}", c.error);
    // With the others held fixed, B is placed by both its pairs' information, C by its one.
    let b_placement = Z_95 * ELO_PER_NATURAL_UNIT / (40.0f64 * 0.75 * 0.25 + 20.0 * 0.6 * 0.4).sqrt();
    let c_placement = Z_95 * ELO_PER_NATURAL_UNIT / (20.0f64 * 0.6 * 0.4).sqrt();
    assert!(close(fit.placement_errors[1].unwrap(), b_placement, 1e-6), "{:?}", fit.placement_errors);
    assert!(close(fit.placement_errors[2].unwrap(), c_placement, 1e-6), "{:?}", fit.placement_errors);
    // The figures worked by hand: 190.8 ± 124.3 and 261.3 ± 199.0.
    assert!(close(b.elo, 190.8, 0.05) && close(b.error, 124.3, 0.05), "{b:?}");
    assert!(close(c.elo, 261.3, 0.05) && close(c.error, 199.0, 0.05), "{c:?}");
}

#[test]
fn a_triangle_scored_exactly_as_the_model_predicts_gives_back_its_ratings() {
    let truth = [0.0, 200.0, 450.0];
    let mut results = Results::new(3);
    for a in 0..3 {
        for b in a + 1..3 {
            let e = expected_score(truth[a] - truth[b]);
            results.add_games(a, b, 1.0, 100.0 * e);
            results.add_games(a, b, 0.0, 100.0 * (1.0 - e));
        }
    }
    let fit = fit(&results, &plain(0));
    for (i, want) in truth.iter().enumerate() {
        assert!(close(fit.ratings[i].unwrap().elo, *want, 1e-6), "{i}: {:?}", fit.ratings[i]);
    }
    assert!(fit.steps < 20, "Newton converges fast: {} steps", fit.steps);
}

/// Plays `games` synthetic games between `a` and `b` of known strengths: draws are likelier
/// between equals, and the expected score is the Elo model's.
fn play(results: &mut Results, rng: &mut SplitMix64, truth: &[f64], a: usize, b: usize, games: u32) {
    let expected = expected_score(truth[a] - truth[b]);
    let draw = 0.4 * expected * (1.0 - expected); // at most 10 %
    let win = expected - draw / 2.0;
    for _ in 0..games {
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let score = if u < win {
            1.0
        } else if u < win + draw {
            0.5
        } else {
            0.0
        };
        results.add_game(a, b, score);
    }
}

#[test]
fn synthetic_games_from_known_strengths_are_recovered_within_the_interval() {
    let truth = [0.0, 120.0, -180.0, 260.0, 410.0, 40.0, -320.0, 650.0];
    // The seed is arbitrary; the coverage test below checks the intervals over many seeds.
    let mut rng = SplitMix64::new(1);
    let mut results = Results::new(truth.len());
    for a in 0..truth.len() {
        for b in a + 1..truth.len() {
            play(&mut results, &mut rng, &truth, a, b, 150);
        }
    }
    let fit = fit(&results, &FitOptions::anchored_at(0));
    for (i, want) in truth.iter().enumerate() {
        let rating = fit.ratings[i].unwrap();
        assert!((rating.elo - want).abs() <= rating.error, "entry {i}: {rating:?}, truth {want}");
        assert!(rating.error < 60.0, "entry {i}: 1050 games give a tight interval: {rating:?}");
    }
}

#[test]
fn the_95_percent_intervals_cover_the_truth_about_95_percent_of_the_time() {
    // Many replications of a small ladder: the share of intervals holding the true rating is the
    // intervals' real coverage.
    let truth = [0.0, 150.0, -100.0];
    let (replications, mut covered, mut total) = (400, 0, 0);
    let mut rng = SplitMix64::new(7);
    for _ in 0..replications {
        let mut results = Results::new(3);
        play(&mut results, &mut rng, &truth, 0, 1, 60);
        play(&mut results, &mut rng, &truth, 1, 2, 60);
        play(&mut results, &mut rng, &truth, 0, 2, 60);
        let fit = fit(&results, &FitOptions::anchored_at(0));
        for (i, want) in truth.iter().enumerate().skip(1) {
            let rating = fit.ratings[i].unwrap();
            total += 1;
            covered += usize::from((rating.elo - want).abs() <= rating.error);
        }
    }
    let coverage = covered as f64 / total as f64;
    assert!((0.92..=0.98).contains(&coverage), "coverage {coverage}");
}

#[test]
fn an_entry_that_lost_everything_is_finite_and_at_the_bottom() {
    let mut results = Results::new(3);
    results.add_games(0, 1, 0.5, 10.0);
    results.add_games(2, 0, 0.0, 12.0); // entry 2 loses all its games
    results.add_games(2, 1, 0.0, 12.0);
    let fit = fit(&results, &FitOptions::anchored_at(0));
    let bottom = fit.ratings[2].unwrap();
    assert!(bottom.elo.is_finite() && bottom.error.is_finite());
    assert!(bottom.elo < -300.0, "{bottom:?}");
    assert!(fit.ratings.iter().flatten().all(|r| r.elo >= bottom.elo));
}
