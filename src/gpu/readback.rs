//! Awaiting `Buffer::map_async` without blocking: a one-shot future the map callback
//! completes. On the web the callback fires from the browser's event loop; natively the
//! caller polls the device first (see `GpuContext::read`).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct Slot {
    result: Option<Result<(), wgpu::BufferAsyncError>>,
    waker: Option<Waker>,
}

/// Completes when the paired `complete` closure is called.
pub struct MapFuture {
    slot: Arc<Mutex<Slot>>,
}

/// Makes a future and the callback that resolves it.
pub fn map_channel() -> (MapFuture, impl FnOnce(Result<(), wgpu::BufferAsyncError>) + Send + 'static) {
    let slot = Arc::new(Mutex::new(Slot::default()));
    let theirs = slot.clone();
    let complete = move |result| {
        let mut slot = theirs.lock().unwrap_or_else(|e| e.into_inner());
        slot.result = Some(result);
        if let Some(waker) = slot.waker.take() {
            waker.wake();
        }
    };
    (MapFuture { slot }, complete)
}

impl Future for MapFuture {
    type Output = Result<(), wgpu::BufferAsyncError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        match slot.result.take() {
            Some(result) => Poll::Ready(result),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
