//! A URL's record as the loop changes it: read as the log will hold it
//! once the writes held back are committed, updated in the open group when
//! there is one (so that a URL changed twice in a group is written once),
//! and marked in flight when its fetch starts.

use std::time::Instant;

use super::*;

impl Engine {
    /// Record `id` as the log will hold it once the writes held back are
    /// committed (the open group's updates and in-flight marks), else as it
    /// is.
    pub(super) fn current_record(
        &self,
        id: u64,
    ) -> Result<Option<UrlRecord>, crate::store::StoreError> {
        let held = self.deferred.as_ref().and_then(|d| d.record(id));
        let marked = || {
            let (_, record) = self.marks.iter().find(|(at, _)| *at == id)?;
            Some(record.clone())
        };
        let recent = || self.recent.get(&id).cloned();
        match held.or_else(marked).or_else(recent) {
            Some(record) => Ok(Some(record)),
            None => self.log.get(id),
        }
    }

    /// [`Engine::current_record`] for a caller that will write the record
    /// changed: a copy kept in [`Engine::recent`] is taken, not cloned.
    pub(super) fn take_current_record(
        &mut self,
        id: u64,
    ) -> Result<Option<UrlRecord>, crate::store::StoreError> {
        let held = self
            .deferred
            .as_ref()
            .is_some_and(|d| d.record_ref(id).is_some());
        if !held
            && !self.marks.iter().any(|(at, _)| *at == id)
            && let Some(record) = self.recent.remove(&id)
        {
            return Ok(Some(record));
        }
        self.current_record(id)
    }

    /// Changes a record and, in the same transaction as the pending
    /// discoveries, takes the item out of its persisted queue when `leaving`
    /// says so.
    pub(super) fn update_and(
        &mut self,
        id: u64,
        leaving: Option<&Item>,
        change: impl FnOnce(&mut UrlRecord),
    ) {
        let dequeue = leaving.map(|item| Held::Dequeue {
            id,
            level: item.level as u8,
            queue: crate::crawl::frontier::slot(item.queue).unwrap_or(0) as u8,
        });
        let mut held = Vec::with_capacity(2);
        if let Some(record) = self.held_update_mut(id) {
            change(record);
        } else {
            match self.take_current_record(id) {
                Ok(Some(mut record)) => {
                    change(&mut record);
                    held.push(Held::Update {
                        id,
                        record,
                        enqueue: None,
                    });
                }
                Ok(None) => return self.commit(&[]),
                Err(e) => {
                    self.say(&format!("URL log: {e}"));
                    // A change not made, as a refused write is.
                    self.log_failures += 1;
                    return self.commit(&[]);
                }
            }
        }
        held.extend(dequeue);
        self.commit_held(held);
    }

    /// The open group's update of `id`, to be changed in place, when it is
    /// `id`'s latest change there ([`Deferred::latest_update_mut`]): most
    /// outcomes, whose in-flight mark the same group holds.
    pub(super) fn held_update_mut(&mut self, id: u64) -> Option<&mut UrlRecord> {
        self.deferred.as_mut()?.latest_update_mut(id)
    }

    /// Marks a dispatch round's URLs in flight, with robots.txt's answer
    /// that let each go: held back in the open group, or in
    /// [`Engine::marks`] for the next write.
    pub(super) fn mark_in_flight(&mut self, items: &[(u64, Queue, Check)], now: Instant) {
        let mark = |record: &mut UrlRecord, queue: &Queue, robots: &Check| {
            record.state = State::InFlight;
            // In the reason's own buffer: a `format!` for every page cost
            // more than the rest of the mark.
            record.reason.clear();
            record.reason.push_str("being fetched from ");
            record.reason.push_str(queue.name());
            record.robots = Some(robots.text.clone());
            set_layer(&mut record.trace, robots_line(robots));
        };
        for (id, queue, robots) in items {
            // A retry whose earlier outcome the group holds: marked where
            // it is held, so it ends in flight, not as that outcome left it.
            if let Some(record) = self.held_update_mut(*id) {
                mark(record, queue, robots);
                continue;
            }
            // As the group or the log has it (a retry's error count, say).
            let Some(mut record) = self.take_current_record(*id).ok().flatten() else {
                continue;
            };
            mark(&mut record, queue, robots);
            match &mut self.deferred {
                // After the group's changes: a URL retried within one group
                // ends in flight, not as its earlier outcome left it.
                Some(group) => group.hold(Held::Update {
                    id: *id,
                    record,
                    enqueue: None,
                }),
                None => {
                    self.marks.push((*id, record));
                    self.marks_since.get_or_insert(now);
                }
            }
        }
    }
}
