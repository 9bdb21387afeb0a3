//! Sounds on a move, a pass and the end of a game, synthesised in code (no sound files).
//!
//! The app decides which cue to play ([`Cue`]) from what happened in a frame; playing needs the
//! `sound` cargo feature (rodio, which needs the ALSA headers to build on Linux), so the default
//! build works on a fresh machine and simply stays silent.

use std::time::Duration;

/// What just happened, as a sound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    Move,
    Pass,
    GameEnd,
}

/// The sound menu entry's explanation.
#[cfg(feature = "sound")]
pub const STATUS: &str = "Sound on a move, a pass and the end of a game";
#[cfg(not(feature = "sound"))]
pub const STATUS: &str =
    "This build has no sound: build with `--features sound` (needs the ALSA headers, libasound2-dev)";

/// Sample rate of the synthesised cues.
pub const SAMPLE_RATE: u32 = 44_100;
/// Loudness of the cues (0..1).
const VOLUME: f32 = 0.25;

/// Tones of a cue: (frequency in Hz, length).
fn tones(cue: Cue) -> &'static [(f32, Duration)] {
    const MOVE: &[(f32, Duration)] = &[(660.0, Duration::from_millis(45))];
    const PASS: &[(f32, Duration)] = &[(520.0, Duration::from_millis(90)), (390.0, Duration::from_millis(120))];
    const END: &[(f32, Duration)] = &[
        (523.0, Duration::from_millis(110)),
        (659.0, Duration::from_millis(110)),
        (784.0, Duration::from_millis(220)),
    ];
    match cue {
        Cue::Move => MOVE,
        Cue::Pass => PASS,
        Cue::GameEnd => END,
    }
}

/// The samples of `cue`: sine tones, each with a quick attack and an exponential decay so it
/// clicks like a disc rather than beeps.
pub fn samples(cue: Cue) -> Vec<f32> {
    let mut out = Vec::new();
    for &(frequency, length) in tones(cue) {
        let count = (length.as_secs_f32() * SAMPLE_RATE as f32) as usize;
        let attack = (SAMPLE_RATE as usize / 500).max(1);
        for i in 0..count {
            let t = i as f32 / SAMPLE_RATE as f32;
            let envelope = (i as f32 / attack as f32).min(1.0) * (-6.0 * i as f32 / count as f32).exp();
            out.push(VOLUME * envelope * (std::f32::consts::TAU * frequency * t).sin());
        }
    }
    out
}

/// Plays cues when sound is built in and on; remembers the last cue asked for either way (the
/// tests read it).
pub struct Sounds {
    last: Option<Cue>,
    played: usize,
    #[cfg(feature = "sound")]
    output: Option<player::Player>,
}

impl Sounds {
    pub fn new() -> Sounds {
        Sounds {
            last: None,
            played: 0,
            #[cfg(feature = "sound")]
            output: None,
        }
    }

    /// The last cue played (or that would have been, without the feature).
    pub fn last(&self) -> Option<Cue> {
        self.last
    }

    /// How many cues were played.
    pub fn count(&self) -> usize {
        self.played
    }

    pub fn play(&mut self, cue: Cue) {
        self.last = Some(cue);
        self.played += 1;
        #[cfg(feature = "sound")]
        {
            // The audio device is opened on the first cue, not at start-up.
            let output = self.output.get_or_insert_with(player::Player::open);
            output.play(cue);
        }
    }
}

impl Default for Sounds {
    fn default() -> Sounds {
        Sounds::new()
    }
}

#[cfg(feature = "sound")]
mod player {
    use std::num::NonZero;

    use super::{Cue, SAMPLE_RATE, samples};

    /// The audio output, or nothing when the machine has no sound device (then silently).
    pub struct Player {
        sink: Option<rodio::MixerDeviceSink>,
    }

    impl Player {
        pub fn open() -> Player {
            let sink = rodio::DeviceSinkBuilder::open_default_sink().ok().map(|mut sink| {
                sink.log_on_drop(false);
                sink
            });
            Player { sink }
        }

        pub fn play(&self, cue: Cue) {
            let (Some(sink), Some(rate)) = (&self.sink, NonZero::new(SAMPLE_RATE)) else { return };
            let buffer = rodio::buffer::SamplesBuffer::new(NonZero::<u16>::MIN, rate, samples(cue));
            sink.mixer().add(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_are_short_audible_and_never_clip() {
        for cue in [Cue::Move, Cue::Pass, Cue::GameEnd] {
            let samples = samples(cue);
            let seconds = samples.len() as f32 / SAMPLE_RATE as f32;
            assert!(seconds > 0.02 && seconds < 0.5, "{cue:?}: {seconds} s");
            let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
            assert!(peak > 0.1 && peak <= 1.0, "{cue:?}: peak {peak}");
        }
    }
}
