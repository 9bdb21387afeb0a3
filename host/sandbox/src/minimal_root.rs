//! The minimal-root layer (Linux, runner side): the jailed processes see a file system that holds
//! only what they need, as nsjail's and bubblewrap's jails do: a new, empty root (a tmpfs) with
//! read-only binds of the system libraries (and, for an engine, the system's programs), the bot's
//! own library file (not its folder: another entrant's library may lie beside it), an engine's
//! own folders, a few device files, the scratch folder (writable) and the bot's freezer cgroup.
//! No other Unix socket path, no other file, no folder to watch is there.
//!
//! Built in two stages, as bubblewrap builds its root:
//! 1. `prepare` (the keeper, in its new mount namespace): a tmpfs over `/tmp` becomes the root
//!    for a moment, the old root is reached under `/oldroot`, and the new root is put together
//!    in `/newroot` from binds of `/oldroot/…`;
//! 2. `enter` (the PID namespace's init, once it mounted its own `/proc` in the new root, which
//!    the kernel allows only while a full `/proc` is still visible): the old root is detached,
//!    `/newroot` becomes `/`, made read-only, and the working folder is entered again by its path
//!    (a folder held from the old root would lead back into it).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sys::statvfs::{FsFlags, statvfs};

/// Where the root is put together: a tmpfs over `/tmp`, in the runner's own mount namespace.
const BASE: &str = "/tmp";
/// The new root, and the old one, in the base tmpfs once it became the root.
const NEW_ROOT: &str = "/newroot";
const OLD_ROOT: &str = "/oldroot";
/// The base tmpfs holds only folders, empty files and links (mount points and the links of a
/// merged `/usr`).
const BASE_TMPFS_OPTIONS: &str = "size=1m,nr_inodes=4096,mode=0755";

/// System libraries and data every bot may read (and map).
pub const SYSTEM_READ_PATHS: &[&str] = &[
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libx32",
    "/usr/local/lib",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/usr/share/zoneinfo",
    "/sys/devices/system/cpu",
];
/// System programs (and their data) an engine started through `exec` may run and read: a shell
/// script engine needs its shell, `env -C DIR engine` needs `env`, an interpreter its library.
pub const SYSTEM_PROGRAM_PATHS: &[&str] =
    &["/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/libexec", "/usr/share", "/etc/alternatives"];
/// Device files bound in (writable where the device is: writing to /dev/null is fine).
pub const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];
/// Links every program expects in `/dev`.
const DEVICE_LINKS: &[(&str, &str)] = &[
    ("/dev/fd", "/proc/self/fd"),
    ("/dev/stdin", "/proc/self/fd/0"),
    ("/dev/stdout", "/proc/self/fd/1"),
    ("/dev/stderr", "/proc/self/fd/2"),
];

/// What the new root holds besides the system's part.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootPlan {
    /// Files and folders bound read-only at their own (canonical) paths.
    pub read_only: Vec<PathBuf>,
    /// Folders bound writable: the scratch folder, the freezer cgroup.
    pub writable: Vec<PathBuf>,
    /// The system's programs too (an engine).
    pub programs: bool,
    /// The folder to be in once the root is entered (the scratch folder, an engine's folder).
    pub working_folder: Option<PathBuf>,
}

/// What `prepare` made, for `enter` (in the init, a fork of the keeper).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedRoot {
    /// The folder to enter once the new root is the root.
    working_folder: Option<PathBuf>,
}

/// The first stage (the keeper, in its own user and mount namespaces, before it forks): the new
/// root put together in `/newroot` of a tmpfs that is the root for now, the old root under
/// `/oldroot`. The caller's mounts of the old root (the scratch folder's tmpfs) are carried over.
/// On an error the old root is the root again, as it was.
pub(crate) fn prepare(plan: &RootPlan) -> Result<(String, PreparedRoot), String> {
    let fail = |what: &str, e: nix::Error| format!("{what} failed: {e}");
    let working_folder = plan.working_folder.clone().or_else(|| std::env::current_dir().ok());
    // Nothing done here may reach the host's mount namespace.
    mount(None::<&str>, "/", None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>)
        .map_err(|e| fail("making the mounts private", e))?;
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    mount(Some("tmpfs"), BASE, Some("tmpfs"), flags, Some(BASE_TMPFS_OPTIONS))
        .map_err(|e| fail("mounting the new root's tmpfs", e))?;
    let switched = nix::unistd::chdir(BASE).map_err(|e| fail("entering the new root's tmpfs", e)).and_then(|()| {
        for folder in ["newroot", "oldroot"] {
            std::fs::create_dir(folder).map_err(|e| format!("making {folder} in the new root's tmpfs failed: {e}"))?;
        }
        // A mount point of its own, so that it can become the root.
        mount(Some("newroot"), "newroot", None::<&str>, MsFlags::MS_BIND | MsFlags::MS_REC, None::<&str>)
            .map_err(|e| fail("binding the new root", e))?;
        nix::unistd::pivot_root(".", "oldroot").map_err(|e| fail("pivot_root into the tmpfs", e))
    });
    if let Err(why) = switched {
        let _ = umount2(BASE, MntFlags::MNT_DETACH);
        if let Some(folder) = &working_folder {
            let _ = nix::unistd::chdir(folder.as_path());
        }
        return Err(why);
    }
    match build(plan) {
        Ok(description) => Ok((description, PreparedRoot { working_folder })),
        Err(why) => {
            restore_old_root(working_folder.as_deref());
            Err(why)
        }
    }
}

/// The new root's contents, bound from the old root.
fn build(plan: &RootPlan) -> Result<String, String> {
    nix::unistd::chdir("/").map_err(|e| format!("entering the tmpfs root failed: {e}"))?;
    let mut read_only: Vec<PathBuf> = SYSTEM_READ_PATHS.iter().map(PathBuf::from).collect();
    if plan.programs {
        read_only.extend(SYSTEM_PROGRAM_PATHS.iter().map(PathBuf::from));
    }
    read_only.extend(plan.read_only.iter().cloned());
    let mut binder = Binder::default();
    for path in &read_only {
        binder.bind(path, Access::ReadOnly)?;
    }
    for path in &plan.writable {
        binder.bind(path, Access::Writable)?;
    }
    for device in DEVICES {
        binder.bind(Path::new(device), Access::Device)?;
    }
    for (link, target) in DEVICE_LINKS {
        let _ = std::os::unix::fs::symlink(target, inside_new_root(Path::new(link)));
    }
    // The init mounts its /proc here.
    make_folders(&proc_target())?;
    Ok(format!(
        "an empty root with {} binds: read-only, the system's libraries{}, its own {}; its scratch folder \
         writable; no other file, socket or folder",
        binder.bound.len(),
        if plan.programs { " and programs" } else { "" },
        if plan.programs { "folders" } else { "library (not its folder)" },
    ))
}

/// Back to the old root after a failed [`build`] (`auto` mode goes on without the layer).
fn restore_old_root(working_folder: Option<&Path>) {
    if nix::unistd::chdir(OLD_ROOT).is_ok() && nix::unistd::pivot_root(".", ".").is_ok() {
        let _ = umount2(".", MntFlags::MNT_DETACH);
    }
    let _ = nix::unistd::chdir(working_folder.unwrap_or(Path::new("/")));
}

/// Where the `/proc` of the jailed processes is mounted while the root is being prepared.
pub(crate) fn proc_target() -> PathBuf {
    inside_new_root(Path::new("/proc"))
}

/// The second stage (the PID namespace's init, after it mounted its `/proc`): the old root
/// detached, `/newroot` made the root of every process of the namespace (the keeper's too), read
/// only, and the working folder entered again by its path.
pub(crate) fn enter(prepared: &PreparedRoot) -> Result<(), String> {
    let fail = |what: &str, e: nix::Error| format!("{what} failed: {e}");
    // No unmount event may reach the host's namespace.
    mount(None::<&str>, OLD_ROOT, None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>)
        .map_err(|e| fail("making the old root private", e))?;
    umount2(OLD_ROOT, MntFlags::MNT_DETACH).map_err(|e| fail("detaching the old root", e))?;
    nix::unistd::chdir(NEW_ROOT).map_err(|e| fail("entering the new root", e))?;
    // The tmpfs root is stacked on the new one and then taken away (bubblewrap's way).
    nix::unistd::pivot_root(".", ".").map_err(|e| fail("pivot_root into the new root", e))?;
    umount2(".", MntFlags::MNT_DETACH).map_err(|e| fail("detaching the tmpfs root", e))?;
    nix::unistd::chdir("/").map_err(|e| fail("entering the new root", e))?;
    let read_only =
        MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    mount(None::<&str>, "/", None::<&str>, read_only, None::<&str>)
        .map_err(|e| fail("making the root read-only", e))?;
    if let Some(working) = prepared.working_folder.as_deref().filter(|folder| folder.is_dir()) {
        nix::unistd::chdir(working).map_err(|e| fail("entering the working folder", e))?;
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    ReadOnly,
    Writable,
    Device,
}

/// `path` of the host as seen from the tmpfs root, and where it goes in the new root.
fn outside(path: &Path) -> PathBuf {
    Path::new(OLD_ROOT).join(path.strip_prefix("/").unwrap_or(path))
}

fn inside_new_root(path: &Path) -> PathBuf {
    Path::new(NEW_ROOT).join(path.strip_prefix("/").unwrap_or(path))
}

/// Binds paths of the old root into the new one, each once.
#[derive(Default)]
struct Binder {
    bound: std::collections::BTreeSet<PathBuf>,
}

impl Binder {
    /// Binds the host's `path` at the same path in the new root; a link is made again as a link
    /// (a merged `/usr`'s `/lib → usr/lib`) and what it points to is bound too. Missing paths
    /// are skipped; a path that cannot be bound is an error.
    fn bind(&mut self, path: &Path, access: Access) -> Result<(), String> {
        if !path.is_absolute() || path.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(format!("{} is not an absolute, plain path", path.display()));
        }
        if self.bound.iter().any(|bound| path.starts_with(bound)) {
            return Ok(());
        }
        let source = outside(path);
        let Ok(metadata) = std::fs::symlink_metadata(&source) else { return Ok(()) };
        let target = inside_new_root(path);
        if let Some(parent) = target.parent() {
            make_folders(parent)?;
        }
        if metadata.file_type().is_symlink() {
            let link = std::fs::read_link(&source).map_err(|e| format!("reading the link {}: {e}", path.display()))?;
            if std::fs::symlink_metadata(&target).is_err() {
                std::os::unix::fs::symlink(&link, &target)
                    .map_err(|e| format!("making the link {} failed: {e}", path.display()))?;
            }
            // What it points to (`/etc/localtime` → a file of the zoneinfo), if plain.
            let pointed = path.parent().unwrap_or(Path::new("/")).join(&link);
            if pointed.components().all(|c| !matches!(c, Component::ParentDir)) {
                return self.bind(&pointed, access);
            }
            return Ok(());
        }
        if metadata.is_dir() {
            make_folders(&target)?;
        } else if std::fs::symlink_metadata(&target).is_err() {
            std::fs::File::create(&target)
                .map_err(|e| format!("making the mount point {} failed: {e}", path.display()))?;
        }
        mount(Some(&source), &target, None::<&str>, MsFlags::MS_BIND | MsFlags::MS_REC, None::<&str>)
            .map_err(|e| format!("binding {} failed: {e}", path.display()))?;
        let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_NOSUID | locked_flags(&target);
        match access {
            Access::ReadOnly => flags |= MsFlags::MS_RDONLY | MsFlags::MS_NODEV,
            Access::Writable => flags |= MsFlags::MS_NODEV,
            Access::Device => {}
        }
        mount(None::<&str>, &target, None::<&str>, flags, None::<&str>)
            .map_err(|e| format!("making {} {} failed: {e}", path.display(), describe(access)))?;
        self.bound.insert(path.to_path_buf());
        Ok(())
    }
}

fn describe(access: Access) -> &'static str {
    match access {
        Access::ReadOnly => "read-only",
        Access::Writable | Access::Device => "nosuid",
    }
}

/// The flags of the mount at `target` that a remount must keep: a mount the runner's user
/// namespace inherited has them locked (remounting without them fails).
fn locked_flags(target: &Path) -> MsFlags {
    let Ok(stat) = statvfs(target) else { return MsFlags::empty() };
    let flags = stat.flags();
    let mut locked = MsFlags::empty();
    for (fs, ms) in [
        (FsFlags::ST_RDONLY, MsFlags::MS_RDONLY),
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if flags.contains(fs) {
            locked |= ms;
        }
    }
    locked
}

/// `create_dir_all` in the tmpfs, where the folders are the runner's own.
fn make_folders(folder: &Path) -> Result<(), String> {
    std::fs::create_dir_all(folder).map_err(|e| format!("making {} failed: {e}", folder.display()))
}

/// The scratch folder's parent, held open before the root changes: the keeper removes the folder
/// through it when the host is gone (the host's side of it is no longer in the keeper's view).
pub(crate) fn open_parent(folder: &Path) -> Option<(std::os::fd::OwnedFd, CString)> {
    use std::os::fd::{FromRawFd, OwnedFd};
    let parent = CString::new(folder.parent()?.as_os_str().as_bytes()).ok()?;
    let name = CString::new(folder.file_name()?.as_bytes()).ok()?;
    // SAFETY: open takes a valid C string and flags; it returns a new descriptor or -1.
    let fd = unsafe { libc::open(parent.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    // SAFETY: a descriptor just opened and owned by nobody else.
    (fd >= 0).then(|| (unsafe { OwnedFd::from_raw_fd(fd) }, name))
}
