//! The worker's WebGPU device, opened the first time resident work may use it and shared by the
//! training run and the decoder playgrounds (one device per worker, as the page has one).

use std::cell::RefCell;
use std::rc::Rc;

use atencao::gpu::GpuContext;

enum Device {
    Untried,
    Ready(Rc<GpuContext>),
    Unavailable,
}

thread_local! {
    static DEVICE: RefCell<Device> = const { RefCell::new(Device::Untried) };
}

/// The device, opened now if it never was; none where WebGPU gives none. A lost device is
/// dropped, so the next call opens a new one.
pub async fn device() -> Option<Rc<GpuContext>> {
    let lost = DEVICE.with(|d| matches!(&*d.borrow(), Device::Ready(g) if g.lost_reason().is_some()));
    if lost {
        DEVICE.with(|d| *d.borrow_mut() = Device::Untried);
    }
    if DEVICE.with(|d| matches!(*d.borrow(), Device::Untried)) {
        let opened = match GpuContext::acquire().await {
            Ok(gpu) => Device::Ready(Rc::new(gpu)),
            Err(_) => Device::Unavailable,
        };
        DEVICE.with(|d| *d.borrow_mut() = opened);
    }
    DEVICE.with(|d| match &*d.borrow() {
        Device::Ready(g) => Some(g.clone()),
        _ => None,
    })
}

/// Whether the device opened is a software one (none opened: false).
pub fn software() -> bool {
    DEVICE.with(|d| matches!(&*d.borrow(), Device::Ready(g) if g.facts().software))
}
