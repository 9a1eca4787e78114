//! Measure the certificate trees of a sample of a checkpoint's done jobs:
//! `cargo run --release -p oxo-campaign --example cert_sizes -- CKPT TABLE_MIB [SAMPLES]`.
//! Prints, per job, the positions its search took, the tree's nodes and
//! bytes as text, and the time to write it.

use std::time::Instant;

use oxo_core::proof::Certificate;
use oxo_core::{Game, Player};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).unwrap();
    let mib: usize = args[2].parse().unwrap();
    let samples: usize = args.get(3).map_or(15, |s| s.parse().unwrap());
    let body = text.splitn(3, '\n').nth(2).unwrap();
    let plan: serde_json::Value = serde_json::from_str(body).unwrap();
    let k = plan["k"].as_u64().unwrap() as u32;
    let mut jobs: Vec<(u64, String, Player)> = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| {
            let cost = n["kind"].get("job")?.get("done")?;
            let attacker = if n["attacker"] == "X" {
                Player::X
            } else {
                Player::O
            };
            Some((
                cost["nodes"].as_u64()?,
                n["position"].as_str()?.to_owned(),
                attacker,
            ))
        })
        .collect();
    jobs.sort();
    let game0 = Game::from_notation(&jobs[0].1, k).unwrap();
    let mut prover = oxo_ai::Prover::new(game0.rules(), mib << 20).unwrap();
    prover.set_proof_cap(200_000_000);
    println!("searched\tnodes\tbytes\tms\tcert_positions\tposition");
    for i in 0..samples {
        let (searched, position, attacker) = &jobs[i * (jobs.len() - 1) / (samples - 1)];
        let game = Game::from_notation(position, k).unwrap();
        let before = prover.nodes();
        let start = Instant::now();
        let cert: Certificate = prover
            .certify_hold(&game, attacker.other())
            .unwrap()
            .expect("a hold");
        let ms = start.elapsed().as_millis();
        let bytes = cert.to_text().len();
        println!(
            "{searched}\t{}\t{bytes}\t{ms}\t{}\t{position}",
            cert.nodes.len(),
            prover.nodes() - before
        );
    }
}
