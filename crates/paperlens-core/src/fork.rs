//! Living through `fork()`. A forked child holds a copy of the parent's memory but only the
//! thread that forked: a runtime's workers, a connection pool's connections (registered with
//! the parent's reactor) and pacing state held by requests in flight are copies of things
//! that no longer run. Each such piece is kept in a [`ForkLocal`], built again on its first
//! use in a child; the parent's copy is left untouched (never dropped: its drop would wait for
//! threads that do not exist there).
//!
//! A child is told apart by a generation counter bumped in the child by a `pthread_atfork`
//! handler: checking it is one atomic load, cheaper than asking the kernel for the pid.

use std::marker::PhantomData;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Once;
use std::time::Duration;

static GENERATION: AtomicU64 = AtomicU64::new(0);
static HANDLERS: Once = Once::new();

/// Bumped in every forked child: equal generations mean the same process.
pub fn generation() -> u64 {
    HANDLERS.call_once(register_handlers);
    GENERATION.load(Ordering::Acquire)
}

#[cfg(unix)]
fn register_handlers() {
    extern "C" fn prepare() {
        HOLD.wait_until_none_busy();
    }
    extern "C" fn parent() {
        HOLD.release();
    }
    extern "C" fn child() {
        GENERATION.fetch_add(1, Ordering::AcqRel);
        HOLD.release();
    }
    // SAFETY: the handlers touch atomics only (and sleep), which is sound around fork().
    let failed = unsafe { libc::pthread_atfork(Some(prepare), Some(parent), Some(child)) };
    assert_eq!(failed, 0, "pthread_atfork could not register the fork handlers");
}

#[cfg(not(unix))]
fn register_handlers() {}

/// A value of this process: built again, on first use, in a forked child.
pub struct ForkLocal<T> {
    current: AtomicPtr<Built<T>>,
    owns: PhantomData<Box<Built<T>>>,
}

struct Built<T> {
    generation: u64,
    value: T,
}

impl<T> ForkLocal<T> {
    /// Built on first use.
    pub const fn empty() -> ForkLocal<T> {
        ForkLocal { current: AtomicPtr::new(ptr::null_mut()), owns: PhantomData }
    }

    /// Holding `value`, built in this process.
    pub fn new(value: T) -> ForkLocal<T> {
        let built = Box::new(Built { generation: generation(), value });
        ForkLocal { current: AtomicPtr::new(Box::into_raw(built)), owns: PhantomData }
    }

    /// The value of this process, built by `build` the first time it is asked for here.
    pub fn get_or_init(&self, build: impl FnOnce() -> T) -> &T {
        self.get_or_try_init(|| Ok::<T, std::convert::Infallible>(build())).unwrap_or_else(|never| match never {})
    }

    /// [`get_or_init`](Self::get_or_init) with a `build` that may fail (and is tried again
    /// on the next call).
    pub fn get_or_try_init<E>(&self, build: impl FnOnce() -> Result<T, E>) -> Result<&T, E> {
        let now = generation();
        let seen = self.current.load(Ordering::Acquire);
        // SAFETY: a non-null pointer is a leaked or owned `Built`, freed only by `drop`.
        if let Some(built) = unsafe { seen.as_ref() }.filter(|b| b.generation == now) {
            return Ok(&built.value);
        }
        let fresh = Box::into_raw(Box::new(Built { generation: now, value: build()? }));
        match self.current.compare_exchange(seen, fresh, Ordering::AcqRel, Ordering::Acquire) {
            // The one it replaced is the parent's (or none): left as it is, never dropped.
            Ok(_) => Ok(unsafe { &(*fresh).value }),
            Err(winner) => {
                // Another thread of this process built it first: ours goes, theirs is used.
                drop(unsafe { Box::from_raw(fresh) });
                Ok(unsafe { &(*winner).value })
            }
        }
    }
}

impl<T> Drop for ForkLocal<T> {
    fn drop(&mut self) {
        let current = *self.current.get_mut();
        // SAFETY: as in `get_or_try_init`; a value of the parent is never dropped in a child.
        if unsafe { current.as_ref() }.is_some_and(|b| b.generation == generation()) {
            drop(unsafe { Box::from_raw(current) });
        }
    }
}

// SAFETY: a `ForkLocal` hands out `&T` to any thread and drops `T` on the one dropping it.
unsafe impl<T: Send + Sync> Send for ForkLocal<T> {}
unsafe impl<T: Send + Sync> Sync for ForkLocal<T> {}

/// Work during which this process must not fork (holding a file lock whose descriptor a child
/// would inherit and keep): `fork()` waits until it is done.
pub fn hold_off_fork() -> NoFork {
    HANDLERS.call_once(register_handlers);
    HOLD.enter();
    NoFork(())
}

/// Lets `fork()` go on when dropped.
pub struct NoFork(());

impl Drop for NoFork {
    fn drop(&mut self) {
        HOLD.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

static HOLD: Hold = Hold { busy: AtomicUsize::new(0), forking: AtomicBool::new(false) };

struct Hold {
    busy: AtomicUsize,
    forking: AtomicBool,
}

impl Hold {
    const PAUSE: Duration = Duration::from_micros(200);

    fn enter(&self) {
        loop {
            while self.forking.load(Ordering::SeqCst) {
                std::thread::sleep(Self::PAUSE);
            }
            self.busy.fetch_add(1, Ordering::SeqCst);
            if !self.forking.load(Ordering::SeqCst) {
                return;
            }
            self.busy.fetch_sub(1, Ordering::SeqCst);
        }
    }

    fn wait_until_none_busy(&self) {
        self.forking.store(true, Ordering::SeqCst);
        while self.busy.load(Ordering::SeqCst) > 0 {
            std::thread::sleep(Self::PAUSE);
        }
    }

    fn release(&self) {
        self.forking.store(false, Ordering::SeqCst);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A forked child exits with 0 when `check` holds there.
    fn in_child(check: impl FnOnce() -> bool) -> bool {
        // SAFETY: the child runs `check` (no locks held by other threads are taken) and exits.
        match unsafe { libc::fork() } {
            0 => unsafe { libc::_exit(if check() { 0 } else { 1 }) },
            pid => {
                let mut status = 0;
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
            }
        }
    }

    #[test]
    fn a_child_builds_its_own_value_and_the_parent_keeps_its() {
        let builds = AtomicUsize::new(0);
        let local = ForkLocal::new(std::process::id());
        let pid = |local: &ForkLocal<u32>| {
            *local
                .get_or_try_init(|| {
                    builds.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, ()>(std::process::id())
                })
                .unwrap()
        };
        assert_eq!(pid(&local), std::process::id());
        assert!(in_child(|| pid(&local) == std::process::id()
            && pid(&local) == std::process::id()
            && builds.load(Ordering::SeqCst) == 1));
        assert_eq!(pid(&local), std::process::id());
        assert_eq!(builds.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn an_empty_one_is_built_once_per_process() {
        static LOCAL: ForkLocal<u32> = ForkLocal::empty();
        assert_eq!(*LOCAL.get_or_init(std::process::id), std::process::id());
        assert!(in_child(|| *LOCAL.get_or_init(std::process::id) == std::process::id()));
    }

    #[test]
    fn fork_waits_for_work_that_holds_it_off() {
        let held = hold_off_fork();
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let releaser = {
            let done = done.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                done.store(true, Ordering::SeqCst);
                drop(held);
            })
        };
        // The child's copy of `done` shows what the parent had when fork() went through.
        assert!(in_child(|| done.load(Ordering::SeqCst)));
        releaser.join().unwrap();
    }
}
