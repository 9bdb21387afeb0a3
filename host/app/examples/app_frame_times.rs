//! How long the app's frames take while two bots play (one of them always thinking), measured
//! headless with egui_kittest: the egui pass plus tessellation, i.e. the CPU work of a frame
//! without the GPU upload. The target is no frame over 16 ms.
//!
//! `cargo run --release -p othello-app --example app_frame_times` (the example serves its bots'
//! runner processes itself). With `-- --analysis` the move evaluations are on as well, Alpha-beta
//! analysing every position in its own runner (values deepening, searches killed at each move);
//! it is `libalphabeta.so` of the same build: `cargo build --release -p bot-alphabeta` first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use othello_app::catalog::FolderSource;
use othello_app::{Launch, OthelloApp, SeatChoice, Settings};
use othello_arena::seat::{RunnerCommand, SeatOptions};

/// How long to measure.
const MEASURE_FOR: Duration = Duration::from_secs(10);
/// Time per move given to the bots (the test bot thinks a quarter of it).
const TIME_PER_MOVE_MS: u64 = 400;
/// Frames are paced like a 60 Hz display.
const FRAME_INTERVAL: Duration = Duration::from_micros(16_667);

fn main() {
    // The bots' runners are this same executable (`app_frame_times runner …`).
    othello_runner::main_if_runner();
    let exe = std::env::current_exe().unwrap();
    let exe_dir = exe.parent().unwrap().parent().unwrap().to_owned();
    let bot = compile_thinker(&exe_dir);
    let analyser = std::env::args().any(|arg| arg == "--analysis").then(|| {
        let library =
            exe_dir.join(format!("{}alphabeta{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
        assert!(
            library.exists(),
            "{} is missing: build it first with `cargo build --release -p bot-alphabeta`",
            library.display()
        );
        library
    });

    let seat = SeatChoice::Bot { path: bot.clone(), level: None };
    let settings = Settings {
        black: seat.clone(),
        white: seat,
        time_per_move_ms: TIME_PER_MOVE_MS,
        bot_delay_ms: 0,
        show_evaluations: analyser.is_some(),
        analysis_bot: analyser,
        ..Settings::default()
    };
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: RunnerCommand::new(exe).with_arg(othello_runner::RUNNER_SUBCOMMAND),
        options: SeatOptions::default(),
        engines: Vec::new(),
    };
    let folders = FolderSource::Exact(vec![bot.parent().unwrap().to_owned()]);
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_eframe(move |cc| OthelloApp::with_config(&cc.egui_ctx, settings, folders, &launch));

    let mut frames = Vec::new();
    let mut thinking_frames = 0;
    let mut analysing_frames = 0;
    let started = Instant::now();
    while started.elapsed() < MEASURE_FOR {
        let frame_start = Instant::now();
        harness.step();
        let output = harness.output();
        let primitives = harness.ctx.tessellate(output.shapes.clone(), output.pixels_per_point);
        std::hint::black_box(primitives);
        let took = frame_start.elapsed();
        frames.push(took);
        if harness.state().session().thinking().is_some() {
            thinking_frames += 1;
        }
        if harness.state().analysis().is_running() {
            analysing_frames += 1;
        }
        if harness.state().game().is_over() {
            harness.state_mut().new_game();
        }
        std::thread::sleep(FRAME_INTERVAL.saturating_sub(took));
    }
    let slow: Vec<String> = frames
        .iter()
        .enumerate()
        .filter(|(_, f)| **f > Duration::from_millis(16))
        .map(|(i, f)| format!("frame {i}: {:.1} ms", f.as_secs_f64() * 1e3))
        .collect();
    if !slow.is_empty() {
        println!("slow frames: {}", slow.join(", "));
    }
    frames.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let at = |q: f64| frames[((frames.len() - 1) as f64 * q) as usize];
    println!(
        "{} frames ({} while a bot was thinking, {} while the analysis ran): median {:.2} ms, p99 {:.2} ms, \
         max {:.2} ms; over 16 ms: {}",
        frames.len(),
        thinking_frames,
        analysing_frames,
        ms(at(0.5)),
        ms(at(0.99)),
        ms(*frames.last().unwrap()),
        frames.iter().filter(|f| **f > Duration::from_millis(16)).count()
    );
}

fn compile_thinker(out: &Path) -> PathBuf {
    let folder = out.join("frame-times-bots");
    std::fs::create_dir_all(&folder).unwrap();
    let library = folder.join(format!("{}thinker{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-shared", "-fPIC", "-I"])
        .arg(manifest.join("../../sdk/include"))
        .arg(manifest.join("examples/bots/thinker_bot.c"))
        .arg("-o")
        .arg(&library)
        .status()
        .expect("a C compiler");
    assert!(status.success());
    library
}
