import Foundation
import TestscopeHistory

/// Where a run happened, for its history row: commit, tree and branch from git (the CI's branch
/// variable first: CI checkouts are often a detached HEAD), the CI provider, its run and its job.
struct HistoryEnvironment {
    var environment: [String: String]

    /// The provider's name and the variables holding its run id, job and branch (first non-empty wins).
    static let providers: [(flag: String, name: String, run: [String], job: [String], branch: [String])] = [
        ("GITHUB_ACTIONS", "github-actions", ["GITHUB_RUN_ID"], ["GITHUB_JOB"], ["GITHUB_HEAD_REF", "GITHUB_REF_NAME"]),
        ("GITLAB_CI", "gitlab", ["CI_PIPELINE_ID"], ["CI_JOB_NAME"], ["CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_BRANCH", "CI_COMMIT_REF_NAME"]),
        ("BUILDKITE", "buildkite", ["BUILDKITE_BUILD_ID"], ["BUILDKITE_LABEL"], ["BUILDKITE_BRANCH"]),
        ("CIRCLECI", "circleci", ["CIRCLE_WORKFLOW_ID"], ["CIRCLE_JOB"], ["CIRCLE_BRANCH"]),
        ("JENKINS_URL", "jenkins", ["BUILD_TAG"], ["JOB_NAME"], ["BRANCH_NAME", "GIT_BRANCH"]),
    ]

    func value(_ names: [String]) -> String? {
        names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    func describe(_ run: inout HistoryRun, packageRoot: URL) {
        if let provider = Self.providers.first(where: { !(environment[$0.flag] ?? "").isEmpty && environment[$0.flag] != "false" }) {
            run.ciProvider = provider.name
            run.ciRunID = value(provider.run).map { id in
                // A re-run of the same workflow is another run of the same id.
                provider.name == "github-actions" ? id + (environment["GITHUB_RUN_ATTEMPT"].map { "/" + $0 } ?? "") : id
            }
            run.ciJob = value(provider.job)
            run.branch = value(provider.branch)
        } else if environment["CI"] == "true" {
            run.ciProvider = "ci"
        }
        // Not a repository, or no git: the run is stored without commit (same-code checks then fall back to nothing).
        guard let git = try? GitRepository.containing(packageRoot, environment: environment) else { return }
        run.commit = (try? git.head()) ?? nil
        if run.commit != nil {
            run.tree = ((try? git.output(["rev-parse", "HEAD^{tree}"])) ?? nil)?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if run.branch == nil, let name = ((try? git.output(["rev-parse", "--abbrev-ref", "HEAD"])) ?? nil)?.trimmingCharacters(in: .whitespacesAndNewlines),
           !name.isEmpty, name != "HEAD" {
            run.branch = name
        }
    }
}
