//! Stress for sled 0.34.7's truncation deadlock (upstream issue #1412):
//! `bump_tip` waits, holding the segment accountant's lock, for a file
//! truncation queued on sled's IO thread pool, while every pool thread
//! waits for that lock in `write_to_log`. Tiny segments, many writer
//! threads overwriting and removing a few keys, and `flush` calls make the
//! end of the file free and truncated often; a fresh database every few
//! seconds. A watchdog exits with status 2 after 30 s without progress,
//! after writing every thread's backtrace (gdb, when installed) to
//! `sled-stress-hang-PID.txt` in the temp folder.
//!
//! Build with `--features stock` (crates.io's sled 0.34.7) or
//! `--features patched` (the copy in `..`).
//!
//! Usage: sled-truncation-stress [threads] [segment_size] [value_max]
//! [secs_per_db] [total_secs] [cpu_burners] [cache_bytes] [keys]
//! [transactions 0/1] [flush 0/1]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::Arc;

#[cfg(all(feature = "stock", not(feature = "patched")))]
use sled_stock as sled;
#[cfg(feature = "patched")]
use sled_patched as sled;
use std::time::{Duration, Instant};

static PROGRESS: AtomicU64 = AtomicU64::new(0);
static STOP: AtomicBool = AtomicBool::new(false);

fn arg(i: usize, d: u64) -> u64 {
    std::env::args().nth(i).map(|s| s.parse().unwrap()).unwrap_or(d)
}

fn rng(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn main() {
    let threads = arg(1, 16);
    let seg = arg(2, 1024);
    let vmax = arg(3, 300);
    let secs_per_db = arg(4, 15);
    let total = arg(5, 300);
    let burners = arg(6, 2);
    let cache = arg(7, 64 * 1024);
    let keys = arg(8, 64);
    let txn = arg(9, 1) != 0;
    let flush = arg(10, 1) != 0;
    eprintln!(
        "pid={} threads={threads} segment_size={seg} value_max={vmax} secs_per_db={secs_per_db} total={total} burners={burners} cache={cache} keys={keys} txn={txn} flush={flush}",
        std::process::id()
    );

    // watchdog
    std::thread::spawn(|| {
        let mut last = PROGRESS.load(SeqCst);
        let mut since = Instant::now();
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let now = PROGRESS.load(SeqCst);
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() > Duration::from_secs(30) {
                eprintln!("HANG: no progress for 30s (progress={now})");
                let pid = std::process::id().to_string();
                // gdb writes straight to a file: this thread is stopped by
                // gdb too, so it must not be the one draining a pipe.
                let path = std::env::temp_dir().join(format!("sled-stress-hang-{pid}.txt"));
                let file = std::fs::File::create(&path).expect("hang report file");
                let st = std::process::Command::new("gdb")
                    .args(["-p", &pid, "-batch", "-ex", "thread apply all bt"])
                    .stdout(file)
                    .stderr(std::process::Stdio::null())
                    .status();
                eprintln!("gdb ({st:?}) backtrace written to {}", path.display());
                std::process::exit(2);
            }
        }
    });

    for _ in 0..burners {
        std::thread::spawn(|| {
            let mut x = 1u64;
            while !STOP.load(Relaxed) {
                for _ in 0..100000 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                std::hint::black_box(x);
            }
        });
    }

    let start = Instant::now();
    let mut attempt = 0u64;
    while start.elapsed() < Duration::from_secs(total) {
        attempt += 1;
        let dir = std::env::temp_dir()
            .join(format!("sled-stress-{}-{}", std::process::id(), attempt));
        let db = sled::Config::new()
            .path(&dir)
            .segment_size(seg as usize)
            .cache_capacity(cache)
            .open()
            .unwrap();
        let tree2 = db.open_tree("t2").unwrap();
        let db = Arc::new((db, tree2));
        let t0 = Instant::now();
        let ops = Arc::new(AtomicU64::new(0));
        let mut hs = vec![];
        for t in 0..threads {
            let db = db.clone();
            let ops = ops.clone();
            hs.push(std::thread::spawn(move || {
                let (db, t2) = &*db;
                let mut s = 0x9E3779B97F4A7C15u64 ^ (t + 1) * 0x1234567 ^ attempt;
                let mut buf = vec![0u8; vmax as usize + 1];
                while t0.elapsed() < Duration::from_secs(secs_per_db) {
                    let r = rng(&mut s);
                    let k = (r % keys).to_be_bytes();
                    let len = (rng(&mut s) % (vmax + 1)) as usize;
                    buf[0] = r as u8;
                    let v = &buf[..len];
                    match r % 100 {
                        0..=49 => {
                            db.insert(k, v).unwrap();
                        }
                        50..=69 => {
                            db.remove(k).unwrap();
                        }
                        70..=79 => {
                            t2.insert(k, v).unwrap();
                            t2.remove((r.wrapping_add(1) % keys).to_be_bytes()).unwrap();
                        }
                        80..=89 if !txn => {
                            db.insert(k, v).unwrap();
                        }
                        90..=96 if !flush => {
                            t2.insert(k, v).unwrap();
                        }
                        80..=89 => {
                            use sled::Transactional;
                            let _ = (&**db, t2).transaction(|(a, b)| {
                                a.insert(&k, v)?;
                                b.remove(&k)?;
                                Ok::<(), sled::transaction::ConflictableTransactionError<()>>(())
                            });
                        }
                        90..=96 => {
                            db.flush().unwrap();
                        }
                        _ => {
                            let _ = db.compare_and_swap(k, Some(v), None as Option<&[u8]>);
                            if r % 1000 == 999 {
                                db.clear().unwrap();
                            }
                        }
                    }
                    ops.fetch_add(1, Relaxed);
                    PROGRESS.fetch_add(1, Relaxed);
                }
            }));
        }
        for h in hs {
            h.join().unwrap();
        }
        let n = ops.load(Relaxed);
        drop(db);
        PROGRESS.fetch_add(1, Relaxed);
        std::fs::remove_dir_all(&dir).ok();
        eprintln!(
            "attempt {attempt}: {n} ops in {:.1}s (elapsed {:.0}s)",
            t0.elapsed().as_secs_f64(),
            start.elapsed().as_secs_f64()
        );
    }
    STOP.store(true, Relaxed);
    println!("OK: no hang in {:.0}s, {attempt} databases", start.elapsed().as_secs_f64());
}
