//! Classifiers of one piece of text: what a user message asks and requires, what an
//! assistant text decides and plans (command outputs are read in `scan`).
//!
//! Invariant: each extractor reads only the text it is given and returns sentences or
//! lines copied from it (clipped), never invented wording.
//!
//! Stages: [`requests`] reads what a user message asks and requires (requests, rules,
//! corrections, short answers), [`refusals`] tells a "no" that refuses nothing, [`pasted`] separates what the user typed from what they
//! pasted, [`assistant`] reads what an assistant text decides, diagnoses and plans.

mod assistant;
mod pasted;
mod refusals;
mod requests;

pub(super) use super::origin::*;
use super::scan::*;
use super::text::*;

pub(super) use assistant::*;
pub(crate) use pasted::is_slash_command;
pub(super) use pasted::*;
pub(super) use refusals::*;
pub(super) use requests::*;
