//! Scale and speed report: the service time per request (no HTTP), for 2,000 and 100,000 papers.
//!
//! `cargo run --release -p paperlens-sandbox --example scale_and_speed_report -- [--papers 2000,100000] [--only TEXT]`
//! - `--papers` (or `PAPERLENS_SPEED_PAPERS`): the corpus sizes, comma-separated;
//! - `--only` (or `PAPERLENS_SPEED_ONLY`): only the requests whose JSON body contains TEXT.

use std::process::ExitCode;
use std::time::Instant;

use paperlens_sandbox::{Access, Service, ServiceConfig, ServiceRequest};
use serde_json::{json, Value};

const USAGE: &str = "usage: scale_and_speed_report [--papers 2000,100000] [--only TEXT]";

fn main() -> ExitCode {
    let (sizes, only) = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    for papers in sizes {
        let started = Instant::now();
        let service = Service::build(ServiceConfig { papers, seed: 0, int64_as_string: false });
        println!("build({papers}): {:?}, {} chunks", started.elapsed(), service.indexes().chunks.len());
        for (path, body) in cases().into_iter().filter(|(_, body)| body.to_string().contains(&only)) {
            measure(&service, path, &body);
        }
    }
    ExitCode::SUCCESS
}

/// The corpus sizes and the text that picks the requests, from the arguments or else the
/// environment.
fn options() -> Result<(Vec<usize>, String), String> {
    let mut papers = std::env::var("PAPERLENS_SPEED_PAPERS").ok();
    let mut only = std::env::var("PAPERLENS_SPEED_ONLY").unwrap_or_default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--papers" => papers = Some(value?),
            "--only" => only = value?,
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    let sizes = match papers {
        None => vec![2_000, 100_000],
        Some(list) => list
            .split(',')
            .map(|size| size.trim().parse().map_err(|_| format!("--papers: {size:?} is not a number of papers")))
            .collect::<Result<_, _>>()?,
    };
    Ok((sizes, only))
}

fn cases() -> Vec<(&'static str, Value)> {
    let agentic = |query: &str, retrieval: &str, sub_queries: u64| json!({"query": query, "top_k": 10, "retrieval": retrieval, "sub_queries": sub_queries});
    let mut cases = vec![
        ("/meta-search", json!({"page_size": 200})),
        (
            "/meta-search",
            json!({"query": "climate precipitation", "page_size": 200, "facets": [{"field": "language"}]}),
        ),
    ];
    for retrieval in ["hybrid", "es", "vector"] {
        for sub_queries in [0, 2] {
            cases.push((
                "/agentic-search",
                agentic("quantum error correction on superconducting qubits", retrieval, sub_queries),
            ));
        }
    }
    // The call of benches/bench_client.py.
    cases.push(("/agentic-search", agentic("retrieval augmented generation for question answering", "hybrid", 0)));
    cases.push(("/agentic-search", json!({"query": "loss aversion nudges", "top_k": 10, "sub_queries": 4})));
    cases.push((
        "/agentic-search",
        json!({"query": "climate", "top_k": 10, "filters": {"lang": "en"}, "source_types": ["pdf"]}),
    ));
    cases
}

/// Prints the service time of one request: repeated for at least 20 rounds and a second,
/// at most 2,000 rounds.
fn measure(service: &Service, path: &str, body: &Value) {
    let request = ServiceRequest::post(path, body, Access::Full);
    let warm = service.handle(&request);
    assert_eq!(warm.status, 200, "{path} {body}");
    let bytes = warm.body.len();
    let started = Instant::now();
    let cpu_started = thread_cpu_ns();
    let mut rounds = 0u32;
    while rounds < 2_000 && (rounds < 20 || started.elapsed().as_millis() < 1_000) {
        let response = service.handle(&request);
        assert_eq!(response.status, 200, "{path} {body}");
        rounds += 1;
    }
    let wall = started.elapsed().as_secs_f64() * 1e6 / rounds as f64;
    // CPU time of this thread when the platform tells it (less noisy on a busy machine).
    let micros = match (cpu_started, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e3 / rounds as f64,
        _ => wall,
    };
    println!("  {micros:>9.1} µs  {path} {body} ({bytes} bytes, {rounds} rounds, {wall:.1} µs wall)");
}

/// Nanoseconds the current thread has run on a CPU (Linux), from its schedstat.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}
