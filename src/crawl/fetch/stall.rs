//! The read timeout: a step of a request (waiting for the headers, for
//! the next piece of the body) fails with [`FetchError::Timeout`] when it
//! takes longer than the limit, and so does the whole request when it
//! takes longer than its total limit (a server that sends a few bytes now
//! and then would otherwise hold a fetch for as long as its body cap lasts:
//! days at 10 MiB).
//!
//! One timer a request, set again only when it goes off early. reqwest's
//! own `read_timeout` kept a timer for the headers and another for the
//! body, and set the body's again after every piece: a crawl of 28 KB
//! pages on loopback was a few per cent faster without it
//! (docs/performance-log.md, the crawler's step 16).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::time::{Instant, Sleep};

use super::FetchError;

/// The clock of one request's steps.
#[derive(Debug)]
pub(super) struct Stall {
    limit: Duration,
    /// The whole request's limit, and when it is up.
    total: Duration,
    ends: Instant,
    /// When the step under way began.
    began: Instant,
    /// Goes off at or before the step's deadline (`began + limit`).
    timer: Pin<Box<Sleep>>,
}

impl Stall {
    /// The clock of a request about to be sent: `limit` a step, `total`
    /// the whole of it.
    pub(super) fn start(limit: Duration, total: Duration) -> Stall {
        let now = Instant::now();
        Stall {
            limit,
            total,
            ends: now + total,
            began: now,
            timer: Box::pin(tokio::time::sleep(limit.min(total))),
        }
    }

    /// `step`'s output, or [`FetchError::Timeout`] once it has taken
    /// `limit`. The time counts from the call: a reader that takes its
    /// time between pieces is not a stalled server.
    pub(super) async fn guard<T>(
        &mut self,
        step: impl Future<Output = T>,
    ) -> Result<T, FetchError> {
        self.guard_step(step, "nothing received for").await
    }

    /// [`Stall::guard`] for sending the request and reading the response
    /// headers: one step, however the headers trickle in, so its timeout
    /// does not claim that nothing came.
    pub(super) async fn headers<T>(
        &mut self,
        step: impl Future<Output = T>,
    ) -> Result<T, FetchError> {
        self.guard_step(
            step,
            "no complete response headers (connecting included) within",
        )
        .await
    }

    async fn guard_step<T>(
        &mut self,
        step: impl Future<Output = T>,
        timed_out: &str,
    ) -> Result<T, FetchError> {
        self.began = Instant::now();
        let mut step = std::pin::pin!(step);
        loop {
            tokio::select! {
                biased;
                out = &mut step => return Ok(out),
                () = &mut self.timer => {
                    let now = Instant::now();
                    if now >= self.ends {
                        return Err(FetchError::Timeout(format!(
                            "not done after {} s (max_fetch_s)",
                            self.total.as_secs_f64()
                        )));
                    }
                    let deadline = (self.began + self.limit).min(self.ends);
                    if now >= deadline {
                        return Err(FetchError::Timeout(format!(
                            "{timed_out} {} s",
                            self.limit.as_secs_f64()
                        )));
                    }
                    // Set for an earlier step: the rest of this one.
                    self.timer.as_mut().reset(deadline);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On tokio's paused clock: a step within the limit passes however
    /// many steps came before (the timer, set for the first, is moved on),
    /// and a step past it fails.
    #[tokio::test(start_paused = true)]
    async fn each_step_has_the_whole_limit() {
        let limit = Duration::from_millis(200);
        let mut stall = Stall::start(limit, Duration::from_secs(60));
        for _ in 0..4 {
            let out = stall
                .guard(tokio::time::sleep(Duration::from_millis(120)))
                .await;
            assert!(out.is_ok(), "a step of 120 ms within 200 ms: {out:?}");
        }
        let started = Instant::now();
        let late = stall.guard(std::future::pending::<()>()).await;
        assert_eq!(
            started.elapsed(),
            limit,
            "failed at the limit, not before or later"
        );
        match late {
            Err(FetchError::Timeout(m)) => assert_eq!(m, "nothing received for 0.2 s"),
            other => panic!("a step that never ends must time out: {other:?}"),
        }
        // Headers that never complete (they may trickle in) say so.
        let mut stall = Stall::start(limit, Duration::from_secs(60));
        match stall.headers(std::future::pending::<()>()).await {
            Err(FetchError::Timeout(m)) => {
                assert_eq!(
                    m,
                    "no complete response headers (connecting included) within 0.2 s"
                );
            }
            other => panic!("headers that never end must time out: {other:?}"),
        }
    }

    /// A request whose every step comes in time still ends at its total
    /// limit (a server dripping its body).
    #[tokio::test(start_paused = true)]
    async fn the_whole_request_has_its_own_limit() {
        let total = Duration::from_millis(1000);
        let mut stall = Stall::start(Duration::from_millis(200), total);
        let started = Instant::now();
        let mut steps = 0;
        let failed = loop {
            match stall
                .guard(tokio::time::sleep(Duration::from_millis(150)))
                .await
            {
                Ok(()) => steps += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(steps, 6, "steps of 150 ms until 1 s is up");
        assert_eq!(started.elapsed(), total, "failed at the total limit");
        match failed {
            FetchError::Timeout(m) => assert!(m.contains("not done after 1 s"), "{m}"),
            other => panic!("a timeout: {other:?}"),
        }
    }
}
