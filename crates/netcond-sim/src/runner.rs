//! The one runner of independent runs: every reproduction and every sweep
//! hands it a list of jobs, and it runs them in parallel (rayon) and returns
//! their results in the jobs' order, whatever the number of threads.
//!
//! The progress bar's total is set from the jobs before the first starts (so
//! it does not jump back as parallel runs register themselves); each job
//! advances the bar itself as it goes. A runner called from inside a job of
//! another (a `pcn-admission` row runs its runs) keeps the outer total.

use crate::progress::Progress;
use crate::SimError;
use rayon::prelude::*;

/// Runs `run(i, &jobs[i])` for every job, in parallel. Returns the results in
/// the jobs' order, or the error of the first job (in that order) that
/// failed; every job runs either way. Before any starts, the bar's total is
/// set to the sum of `work(job)` (in the units the jobs advance it by),
/// unless it was fixed before ([`Progress::plan`]).
pub fn run_jobs<J, R, W, F>(
    jobs: &[J],
    progress: &Progress,
    work: W,
    run: F,
) -> Result<Vec<R>, SimError>
where
    J: Sync,
    R: Send,
    W: Fn(&J) -> u64,
    F: Fn(usize, &J) -> Result<R, SimError> + Sync + Send,
{
    progress.plan(jobs.iter().map(work).sum());
    let results: Vec<Result<R, SimError>> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, job)| run(i, job))
        .collect();
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_jobs_order_and_the_first_error_wins() {
        let jobs: Vec<u64> = (0..200).collect();
        let p = Progress::hidden();
        let out = run_jobs(&jobs, &p, |_| 1, |i, &j| Ok((i as u64, j * j))).unwrap();
        assert_eq!(out, jobs.iter().map(|&j| (j, j * j)).collect::<Vec<_>>());
        let err = run_jobs(
            &jobs,
            &p,
            |_| 1,
            |_, &j| {
                if j % 50 == 7 {
                    Err(SimError::Param(format!("job {j}")))
                } else {
                    Ok(j)
                }
            },
        );
        assert_eq!(err, Err(SimError::Param("job 7".into())));
    }
}
