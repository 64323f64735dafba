//! The pacer against simulated gateways of each kind, at full scale (minutes of quota) on
//! tokio's paused clock: requests travel with random delays, the gateway counts them on
//! arrival and answers 429 with `Retry-After` in whole seconds, as the contract has it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::gate::{Gate, Held, LocalAdaptive, LocalWindow};
use super::Outcome;

const MINUTE: Duration = Duration::from_secs(60);

#[derive(Clone, Copy, Debug)]
enum Kind {
    Sliding,
    Fixed,
    Bucket,
}

const KINDS: [Kind; 3] = [Kind::Sliding, Kind::Fixed, Kind::Bucket];

/// N requests per minute, counted the way `kind` says (a bucket may have its own size and rate).
struct Gateway {
    kind: Kind,
    limit: u32,
    per_second: f64,
    start: Instant,
    admitted: VecDeque<Instant>,
    window: (u64, u32),
    tokens: f64,
    refilled: Instant,
    requests: u32,
    refusals: u32,
}

impl Gateway {
    fn new(kind: Kind, limit: u32, start: Instant) -> Gateway {
        let (admitted, window) = (VecDeque::new(), (0, 0));
        Gateway {
            kind,
            limit,
            per_second: f64::from(limit) / 60.0,
            start,
            admitted,
            window,
            tokens: f64::from(limit),
            refilled: start,
            requests: 0,
            refusals: 0,
        }
    }

    fn bucket(size: u32, per_second: f64) -> Gateway {
        Gateway { per_second, ..Gateway::new(Kind::Bucket, size, Instant::now()) }
    }

    /// `Err(retry_after)` when refused.
    fn admit(&mut self, now: Instant) -> Result<(), Duration> {
        self.requests += 1;
        let wait = match self.kind {
            Kind::Sliding => {
                while self.admitted.front().is_some_and(|t| now - *t >= MINUTE) {
                    self.admitted.pop_front();
                }
                if self.admitted.len() < self.limit as usize {
                    self.admitted.push_back(now);
                    return Ok(());
                }
                self.admitted[0] + MINUTE - now
            }
            Kind::Fixed => {
                let index = (now - self.start).as_secs() / 60;
                if index != self.window.0 {
                    self.window = (index, 0);
                }
                if self.window.1 < self.limit {
                    self.window.1 += 1;
                    return Ok(());
                }
                self.start + MINUTE * (index as u32 + 1) - now
            }
            Kind::Bucket => {
                let rate = self.per_second;
                self.tokens = (self.tokens + (now - self.refilled).as_secs_f64() * rate).min(f64::from(self.limit));
                self.refilled = now;
                if self.tokens >= 1.0 {
                    self.tokens -= 1.0;
                    return Ok(());
                }
                Duration::from_secs_f64((1.0 - self.tokens) / rate)
            }
        };
        self.refusals += 1;
        Err(Duration::from_secs(wait.as_secs_f64().ceil().max(1.0) as u64))
    }
}

/// As many requests in flight as the test makes.
static UNBOUNDED: Semaphore = Semaphore::const_new(10_000);

struct World {
    gate: Arc<Gate>,
    gateway: Mutex<Gateway>,
    rng: Mutex<StdRng>,
}

impl World {
    fn new(kind: Kind, configured: u32, gateway_limit: u32) -> Arc<World> {
        let gate = Gate::new("meta-search", Box::new(LocalWindow::new(Some(configured))));
        World::with(gate, Gateway::new(kind, gateway_limit, Instant::now()))
    }

    fn with(gate: Arc<Gate>, gateway: Gateway) -> Arc<World> {
        Arc::new(World { gate, gateway: Mutex::new(gateway), rng: Mutex::new(StdRng::seed_from_u64(7)) })
    }

    /// One way of a trip over loopback or a near network: 0.2 to 5 ms.
    fn travel(&self) -> Duration {
        Duration::from_micros(self.rng.lock().unwrap().gen_range(200..5000))
    }

    /// One call with up to `max_retries` retries of 429s, as the transport makes it.
    async fn call(&self, max_retries: u32) -> bool {
        for _ in 0..=max_retries {
            let (mut ticket, _in_flight) = self.gate.enter(&UNBOUNDED, &mut |_| {}).await.unwrap();
            ticket.sent();
            tokio::time::sleep(self.travel()).await;
            let answer = self.gateway.lock().unwrap().admit(Instant::now());
            tokio::time::sleep(self.travel()).await;
            match answer {
                Ok(()) => {
                    ticket.finish(Outcome::Counted).await;
                    return true;
                }
                Err(wait) => ticket.finish(Outcome::Refused { pause: Some(wait) }).await,
            }
        }
        false
    }

    /// One call retrying alone after each 429, as every call did before pacing learned.
    async fn call_alone(&self, max_retries: u32) -> bool {
        for _ in 0..=max_retries {
            tokio::time::sleep(self.travel()).await;
            let answer = self.gateway.lock().unwrap().admit(Instant::now());
            tokio::time::sleep(self.travel()).await;
            match answer {
                Ok(()) => return true,
                Err(wait) => tokio::time::sleep(wait).await,
            }
        }
        false
    }

    fn counts(&self) -> (u32, u32) {
        let gateway = self.gateway.lock().unwrap();
        (gateway.requests, gateway.refusals)
    }
}

#[tokio::test(start_paused = true)]
async fn a_paced_harvest_of_two_minutes_quota_takes_one_minute_and_no_429() {
    for kind in KINDS {
        let world = World::new(kind, 120, 120);
        let start = Instant::now();
        for _ in 0..240 {
            assert!(world.call(0).await, "{kind:?}");
        }
        let took = start.elapsed();
        assert_eq!(world.counts(), (240, 0), "{kind:?}");
        // 120 at once, 120 a minute later, each taking a round trip: about 61 s.
        assert!(took < MINUTE.mul_f64(1.05), "{kind:?}: {took:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn concurrent_pages_stay_within_the_quota() {
    for kind in KINDS {
        let world = World::new(kind, 50, 50);
        assert_eq!(burst(&world, 200, 0, false).await, 200, "{kind:?}");
        assert_eq!(world.counts(), (200, 0), "{kind:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn thirty_calls_against_a_gateway_of_ten_send_at_most_fifty_requests() {
    for kind in KINDS {
        let world = World::new(kind, 30, 10);
        assert_eq!(burst(&world, 30, 3, false).await, 30, "{kind:?}: a call failed");
        let (requests, refusals) = world.counts();
        // The first burst: 10 admitted and 20 refused; after it, none refused again.
        assert_eq!((requests, refusals), (50, 20), "{kind:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_sequential_harvest_learns_a_stricter_gateway_at_its_first_429() {
    for kind in KINDS {
        let world = World::new(kind, 30, 20);
        for _ in 0..80 {
            assert!(world.call(3).await, "{kind:?}");
        }
        let (_, refusals) = world.counts();
        assert_eq!(refusals, 1, "{kind:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn waiters_go_first_come_first_served_and_a_dropped_waiter_leaves_no_trace() {
    let gate = Gate::new("meta-search", Box::new(LocalWindow::new(Some(1))));
    let (first, _) = gate.enter(&UNBOUNDED, &mut |_| {}).await.unwrap();
    let mut told = None;
    let mut tell = |held: Held| told = Some((held.wait, held.per_minute, held.paused));
    assert!(tokio::time::timeout(Duration::from_secs(1), gate.enter(&UNBOUNDED, &mut tell)).await.is_err());
    // The slot in flight frees a minute after its answer, at the earliest.
    assert_eq!(told, Some((MINUTE, 1, false)), "the wait and the limit are told");
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut waiters = Vec::new();
    for n in 0..3 {
        let (gate, order) = (Arc::clone(&gate), Arc::clone(&order));
        waiters.push(tokio::spawn(async move {
            let (ticket, _) = gate.enter(&UNBOUNDED, &mut |_| {}).await.unwrap();
            order.lock().unwrap().push(n);
            ticket.finish(Outcome::Refused { pause: None }).await;
        }));
        tokio::task::yield_now().await;
    }
    first.finish(Outcome::Refused { pause: None }).await;
    for waiter in waiters {
        waiter.await.unwrap();
    }
    assert_eq!(*order.lock().unwrap(), [0, 1, 2]);
}

/// After a 429 from a gateway of 10 a minute, with 30 configured: the wait told is the
/// advised pause, at the rate learned, not the configured one.
#[tokio::test(start_paused = true)]
async fn the_wait_after_a_429_is_told_as_the_pause_at_the_rate_learned() {
    let gate = Gate::new("meta-search", Box::new(LocalWindow::new(Some(30))));
    for _ in 0..10 {
        let (ticket, _) = gate.enter(&UNBOUNDED, &mut |_| {}).await.unwrap();
        ticket.finish(Outcome::Counted).await;
    }
    let (refused, _) = gate.enter(&UNBOUNDED, &mut |_| {}).await.unwrap();
    refused.finish(Outcome::Refused { pause: Some(Duration::from_secs(45)) }).await;
    let mut told = None;
    let mut tell = |held: Held| told = Some(held);
    assert!(tokio::time::timeout(Duration::from_secs(1), gate.enter(&UNBOUNDED, &mut tell)).await.is_err());
    let held = Held { quota: "meta-search", wait: Duration::from_secs(45), per_minute: 10, paused: true };
    assert_eq!(told, Some(held));
}

#[tokio::test(start_paused = true)]
async fn a_request_waiting_for_a_place_in_flight_meets_the_pause_begun_meanwhile() {
    let gate = Gate::new("content", Box::new(LocalAdaptive::new()));
    let one = Arc::new(Semaphore::new(1));
    let (first, permit) = gate.enter(&one, &mut |_| {}).await.unwrap();
    let start = Instant::now();
    let second = {
        let (gate, one) = (Arc::clone(&gate), Arc::clone(&one));
        tokio::spawn(async move {
            let _admitted = gate.enter(&one, &mut |_| {}).await.unwrap();
            start.elapsed()
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    first.finish(Outcome::Refused { pause: Some(Duration::from_secs(10)) }).await;
    drop(permit);
    assert!(second.await.unwrap() >= Duration::from_secs(11));
}

/// `calls` concurrent calls of up to `max_retries` retries each; how many succeeded.
async fn burst(world: &Arc<World>, calls: usize, max_retries: u32, alone: bool) -> usize {
    let tasks: Vec<_> = (0..calls)
        .map(|_| {
            let world = Arc::clone(world);
            tokio::spawn(async move {
                if alone {
                    world.call_alone(max_retries).await
                } else {
                    world.call(max_retries).await
                }
            })
        })
        .collect();
    let mut succeeded = 0;
    for task in tasks {
        succeeded += usize::from(task.await.unwrap());
    }
    succeeded
}

#[tokio::test(start_paused = true)]
async fn an_operation_without_a_quota_slows_down_on_429_instead_of_each_call_retrying_alone() {
    let gateway = || Gateway::bucket(10, 20.0);
    let alone = World::with(Gate::new("content", Box::new(LocalAdaptive::new())), gateway());
    let succeeded_alone = burst(&alone, 200, 3, true).await;
    let adaptive = World::with(Gate::new("content", Box::new(LocalAdaptive::new())), gateway());
    assert_eq!(burst(&adaptive, 200, 3, false).await, 200, "every call succeeds");
    let ((requests_alone, _), (requests, refusals)) = (alone.counts(), adaptive.counts());
    assert!(succeeded_alone < 100, "alone, {succeeded_alone} calls of 200 succeed in {requests_alone} requests");
    // The first burst meets a bucket of 10: 190 refused. After it, next to none.
    assert!(refusals <= 190 + 5, "{refusals} refused in {requests} requests");
}
