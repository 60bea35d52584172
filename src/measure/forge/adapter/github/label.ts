// The GitHub adapter's name in failures and evidence, apart from the adapter itself: naming it
// must not load Octokit (a scan whose hosts have no GitHub API never does).
export const GITHUB_LABEL = 'GitHub API';
