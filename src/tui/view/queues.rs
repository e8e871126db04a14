//! The Queues view: the six queues with weight, expected (by weight) and observed
//! share, length, pick rate and a gauge; the busiest hosts with why each
//! is idle; the throughput sparkline.

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::Line;
use ratatui::widgets::{Block, LineGauge, Paragraph, Row, Sparkline, Table};

use super::{safe, selected_style};
use crate::crawl::detail::HostIdle;
use crate::crawl::frontier::QUEUES;
use crate::tui::app::App;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    // On a short terminal the queues keep their rows first, then the
    // hosts; the sparkline goes before either.
    let spark_height = if area.height >= 9 + 4 + 5 { 5 } else { 0 };
    let [queues, hosts, spark] = Layout::vertical([
        Constraint::Length(9.min(area.height)),
        Constraint::Min(0),
        Constraint::Length(spark_height),
    ])
    .areas(area);
    draw_queues(frame, queues, app);
    draw_hosts(frame, hosts, app);
    let rates: Vec<u64> = app.crawl.rates.iter().copied().collect();
    let latest = rates.last().copied().unwrap_or(0);
    let peak = rates.iter().copied().max().unwrap_or(0);
    let width = usize::from(spark.width.saturating_sub(2));
    let shown = &rates[rates.len().saturating_sub(width)..];
    // The graph of a finished crawl holds its history; its last sample is
    // no rate of now.
    let title = if app.crawl.finished {
        format!(" URLs done per second: finished, peak {peak} ")
    } else {
        format!(" URLs done per second: now {latest}, peak {peak} ")
    };
    frame.render_widget(
        Sparkline::default()
            .data(shown)
            .style(Style::new().fg(Color::Cyan))
            .block(Block::bordered().title(title)),
        spark,
    );
}

fn draw_queues(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let block =
        Block::bordered().title(" queues: most urgent level first, then picks shared by weight ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let detail = &app.crawl.detail;
    let weights = app.queues.weights;
    let total_weight: u64 = weights.iter().map(|&w| u64::from(w)).sum::<u64>().max(1);
    let total_picks: u64 = detail.queues.iter().map(|q| q.picks).sum::<u64>().max(1);
    let rows = queue_rows(inner, app.queues.selected, app.queues.first_shown.get());
    app.queues.first_shown.set(rows.first);
    let heading = |gauge_heading: &str| {
        format!(
            "{:<13}{:>8}{:>9}{:>9}{:>9}{:>10}{:>8}  {gauge_heading}",
            "queue", "weight", "expected", "observed", "length", "picks", "/s"
        )
    };
    // The gauge's heading shortened where the gauge is narrow (80
    // columns), rather than cut.
    let mut header = heading("observed share");
    if header.len() > usize::from(inner.width) {
        header = heading("share");
    }
    if usize::from(inner.width) < 67 + 4 {
        // No gauge (below): no heading for it.
        header = heading("").trim_end().to_string();
    }
    if let Some(area) = rows.header {
        frame.render_widget(Paragraph::new(header).bold(), area);
    }
    for (i, queue) in QUEUES.iter().enumerate() {
        let Some(area) = rows.queue(i) else { continue };
        let row = detail.queues.get(i);
        let (length, picks) = row.map_or((0, 0), |r| (r.length, r.picks));
        let configured = u64::from(weights[i]) as f64 / total_weight as f64;
        let observed = picks as f64 / total_picks as f64;
        // The figures take 67 columns: the gauge only where it has 4 of
        // its own (narrower, the layout squeezed the figures under it).
        let (text, gauge) = if area.width >= 67 + 4 {
            let [text, gauge] =
                Layout::horizontal([Constraint::Length(67), Constraint::Min(4)]).areas(area);
            (text, Some(gauge))
        } else {
            (area, None)
        };
        let line = format!(
            "{:<13}{:>8}{:>8.1}%{:>8.1}%{:>9}{:>10}{:>8}",
            queue.name(),
            weights[i],
            configured * 100.0,
            observed * 100.0,
            length,
            picks,
            app.crawl.pick_rates[i]
        );
        let style = if i == app.queues.selected {
            selected_style()
        } else {
            Style::new()
        };
        frame.render_widget(Paragraph::new(line).style(style), text);
        if let Some(gauge) = gauge {
            frame.render_widget(
                LineGauge::default()
                    .ratio(observed.clamp(0.0, 1.0))
                    .label("")
                    .filled_style(Style::new().fg(Color::Green))
                    .filled_symbol("█")
                    .unfilled_symbol(" "),
                gauge,
            );
        }
    }
}

/// Where the queues table's lines go in `inner`: the header when there is
/// room for it and a queue, and as many queues as fit, a window that keeps
/// the selected one in sight. The window starts where it did last frame
/// (`was_first`) and moves only as far as the selection takes it out, as
/// lists scroll: `k` inside it moves the highlight, not the rows.
struct QueueRows {
    header: Option<Rect>,
    /// The first queue shown, and the area of each shown.
    first: usize,
    lines: Vec<Rect>,
}

impl QueueRows {
    fn queue(&self, i: usize) -> Option<Rect> {
        self.lines.get(i.checked_sub(self.first)?).copied()
    }
}

fn queue_rows(inner: Rect, selected: usize, was_first: usize) -> QueueRows {
    let line = |y: u16| Rect {
        y,
        height: 1,
        ..inner
    };
    let height = usize::from(inner.height);
    let header = (height >= 2).then(|| line(inner.y));
    let shown = (height - usize::from(header.is_some())).min(QUEUES.len());
    // Not `clamp`: with no line to show, the lowest start is past the
    // selection, and `clamp` panics on bounds the wrong way round.
    let first = was_first
        .min(selected)
        .max((selected + 1).saturating_sub(shown))
        .min(QUEUES.len() - shown);
    let top = inner.y + u16::from(header.is_some());
    let lines = (0..shown).map(|k| line(top + k as u16)).collect();
    QueueRows {
        header,
        first,
        lines,
    }
}

/// A host's state; a host that could fetch waits while the crawl is
/// paused, and says so.
fn idle_text(idle: HostIdle, paused: bool) -> String {
    match idle {
        HostIdle::Empty => "nothing queued".into(),
        HostIdle::Ready if paused => "paused".into(),
        HostIdle::Ready => "fetching / ready".into(),
        HostIdle::Busy => "per-host limit reached".into(),
        HostIdle::Politeness(d) => format!("politeness wait {}", short(d)),
        HostIdle::Backoff(d) => format!("backoff after errors {}", short(d)),
        HostIdle::GivenUp(d) => format!("given up: every request failed for {}", short(d)),
    }
}

fn short(d: Duration) -> String {
    if d >= Duration::from_secs(1) {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}ms", d.as_millis())
    }
}

fn draw_hosts(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let d = &app.crawl.detail;
    let header = Row::new([
        "host",
        "pending",
        "active",
        "fetched",
        "delay",
        "state",
        "robots.txt",
    ])
    .style(Style::new().bold().underlined());
    let rows: Vec<Row<'_>> = d
        .hosts
        .iter()
        .map(|h| {
            let mut state = idle_text(h.idle, app.crawl.stats.paused);
            if h.errors_in_row > 0 {
                let errors = crate::text::counted(u64::from(h.errors_in_row), "error", "errors");
                state.push_str(&format!(", {errors} in a row"));
            }
            Row::new(vec![
                safe(&h.origin),
                h.pending.to_string(),
                h.in_flight.to_string(),
                h.fetched.to_string(),
                short(h.delay),
                state,
                safe(&h.robots),
            ])
        })
        .collect();
    let title = format!(" hosts ({} met, busiest first) ", d.hosts_total);
    let host_width = d
        .hosts
        .iter()
        .map(|h| safe(&h.origin).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 40) as u16;
    let table = Table::new(
        rows,
        [
            // As wide as the longest origin shown, within reason.
            Constraint::Length(host_width),
            Constraint::Length(7),
            Constraint::Length(6),
            Constraint::Length(7),
            Constraint::Length(6),
            // The state gives way before the counts, robots.txt first.
            Constraint::Max(26),
            Constraint::Fill(1),
        ],
    )
    .header(header)
    .block(Block::bordered().title(title));
    frame.render_widget(table, area);
    if d.hosts.is_empty() {
        let inner = Rect::new(area.x + 2, area.y + 2, area.width.saturating_sub(4), 1);
        frame.render_widget(Line::from("no host yet").dim(), inner);
    }
}
