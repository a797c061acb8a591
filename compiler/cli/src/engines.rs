//! The engines the binary knows: one line each. A new engine is a crate
//! implementing `qrtl_core::engine::Engine` with a `from_design` reader,
//! registered here (for `qrtl build`) and given a subcommand module.

use crate::build::{BuildEngine, Registered};

pub static ENGINES: [&dyn BuildEngine; 3] = [
    &Registered {
        engine: qrtl_xpath::engine::XpathEngine,
        from_design: qrtl_xpath::engine::from_design,
    },
    &Registered {
        engine: qrtl_track::engine::TrackEngine,
        from_design: qrtl_track::engine::from_design,
    },
    &Registered {
        engine: qrtl_rice::engine::RiceEngine,
        from_design: qrtl_rice::engine::from_design,
    },
];
