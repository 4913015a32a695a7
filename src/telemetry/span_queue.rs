//! The SDK's batch processor behind a counted bound. The SDK drops spans
//! when its queue is full but only logs that once; here every span that is
//! dropped (queue full, or its batch failed to export) is counted in
//! `/metrics` and over OTLP, and the queue never holds more than its bound.

use super::metrics;
use opentelemetry::Context;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::runtime::Tokio;
use opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor;
use opentelemetry_sdk::trace::{BatchConfigBuilder, Span, SpanData, SpanExporter, SpanProcessor};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// `OTEL_BSP_MAX_QUEUE_SIZE`'s default.
pub const DEFAULT_QUEUE: usize = 2048;

/// Room in the SDK's channel for its own flush and shutdown messages, so
/// that they are never refused for spans.
const CONTROL_ROOM: usize = 32;

/// A batch processor that holds at most `capacity` spans between their end
/// and their export.
#[derive(Debug)]
pub struct BoundedSpanProcessor {
    inner: BatchSpanProcessor<Tokio>,
    queued: Arc<AtomicUsize>,
    capacity: usize,
}

impl BoundedSpanProcessor {
    /// `capacity` spans at most; the delay and batch size come from the
    /// `OTEL_BSP_*` variables as the SDK reads them.
    pub fn new<E: SpanExporter + 'static>(exporter: E, capacity: usize) -> Self {
        let queued = Arc::new(AtomicUsize::new(0));
        let exporter = CountingExporter {
            inner: exporter,
            queued: Arc::clone(&queued),
        };
        let config = BatchConfigBuilder::default()
            .with_max_queue_size(capacity + CONTROL_ROOM)
            .build();
        let inner = BatchSpanProcessor::builder(exporter, Tokio)
            .with_batch_config(config)
            .build();
        BoundedSpanProcessor {
            inner,
            queued,
            capacity,
        }
    }
}

impl SpanProcessor for BoundedSpanProcessor {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        if !span.span_context.is_sampled() {
            return;
        }
        let reserved = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |queued| {
                (queued < self.capacity).then_some(queued + 1)
            });
        if reserved.is_err() {
            metrics::spans_dropped("queue_full", 1);
            return;
        }
        self.inner.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// Frees queue slots as batches leave for export and counts the spans of
/// batches that fail (or time out, which drops the export future).
#[derive(Debug)]
struct CountingExporter<E> {
    inner: E,
    queued: Arc<AtomicUsize>,
}

/// Counts its spans as failed unless the export succeeded.
struct FailedUnlessDisarmed(usize);

impl Drop for FailedUnlessDisarmed {
    fn drop(&mut self) {
        if self.0 > 0 {
            metrics::spans_dropped("export_failed", self.0);
        }
    }
}

impl<E: SpanExporter> SpanExporter for CountingExporter<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        self.queued.fetch_sub(spans, Ordering::AcqRel);
        let mut failed = FailedUnlessDisarmed(spans);
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            failed.0 = 0;
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// `OTEL_BSP_MAX_QUEUE_SIZE`, else the default.
pub fn capacity_from(value: Option<String>) -> usize {
    value
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|size| *size > 0)
        .unwrap_or(DEFAULT_QUEUE)
}
