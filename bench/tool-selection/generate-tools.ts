// Writes bench/tool-selection/tools.json: 200 tools as MCP servers expose them (names `mcp__<server>__<tool>`), with
// their descriptions and JSON Schemas, across the services an operations or engineering team connects. The catalogue
// below is the whole source; the output depends on nothing else, so running this again gives the same file:
// `node --import tsx bench/tool-selection/generate-tools.ts`.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A JSON Schema property as the catalogue writes it. */
type Property = Record<string, unknown> & { optional?: boolean };

/** One generated tool: what an MCP server's tools/list would report, under the registry's name. */
export interface FixtureTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[] };
}

const string = (description: string, extra: Record<string, unknown> = {}): Property => ({
  type: 'string',
  description,
  ...extra,
});
const integer = (description: string, extra: Record<string, unknown> = {}): Property => ({
  type: 'integer',
  description,
  ...extra,
});
const number = (description: string): Property => ({ type: 'number', description });
const boolean = (description: string): Property => ({ type: 'boolean', description });
const choice = (description: string, values: string[]): Property => ({ type: 'string', description, enum: values });
const list = (description: string, items: Property): Property => ({ type: 'array', description, items });
const object = (description: string, properties: Record<string, Property>): Property => ({
  type: 'object',
  description,
  properties,
});
const optional = (property: Property): Property => ({ ...property, optional: true });

// Fields many tools of one service share.
const owner = string('Owner of the repository: a user or organization login');
const repo = string('Repository name, without the owner');
const issueKey = string('Issue key, such as PROJ-123');
const channel = string('Channel ID or name, e.g. #deployments');
const namespace = optional(string('Kubernetes namespace (default: the current context namespace)'));
const region = optional(string('AWS region, e.g. us-east-1 (default: the configured region)'));
const limit = optional(integer('Maximum number of results to return', { minimum: 1, maximum: 100 }));
const cursor = optional(string('Pagination cursor from a previous response'));
const timeRange = {
  from: string('Start of the time range: ISO 8601 timestamp or relative like now-1h'),
  to: optional(string('End of the time range (default: now)')),
};

type Catalogue = Record<string, [tool: string, description: string, properties: Record<string, Property>][]>;

const catalogue: Catalogue = {
  github: [
    [
      'create_issue',
      'Create a new issue in a GitHub repository.',
      {
        owner,
        repo,
        title: string('Issue title'),
        body: optional(string('Issue body in Markdown')),
        labels: optional(list('Labels to apply', string('Label name'))),
        assignees: optional(list('Logins to assign', string('GitHub login'))),
      },
    ],
    [
      'get_issue',
      'Get the details of a specific issue in a GitHub repository, including its body, labels and state.',
      { owner, repo, issue_number: integer('The number of the issue') },
    ],
    [
      'list_issues',
      'List issues in a GitHub repository, filtered by state, labels or assignee.',
      {
        owner,
        repo,
        state: optional(choice('Filter by state', ['open', 'closed', 'all'])),
        labels: optional(list('Only issues with all these labels', string('Label name'))),
        per_page: limit,
      },
    ],
    [
      'update_issue',
      'Update an existing issue: change its title, body, state, labels or assignees.',
      {
        owner,
        repo,
        issue_number: integer('The number of the issue'),
        title: optional(string('New title')),
        state: optional(choice('New state', ['open', 'closed'])),
        labels: optional(list('Labels to set', string('Label name'))),
      },
    ],
    [
      'add_issue_comment',
      'Add a comment to an issue or pull request.',
      { owner, repo, issue_number: integer('Issue or pull request number'), body: string('Comment text in Markdown') },
    ],
    [
      'search_issues',
      'Search issues and pull requests across GitHub with the GitHub search syntax.',
      {
        q: string('Search query, e.g. "is:open label:bug repo:org/app"'),
        sort: optional(choice('Sort field', ['comments', 'created', 'updated'])),
        per_page: limit,
      },
    ],
    [
      'create_pull_request',
      'Open a new pull request from a head branch into a base branch.',
      {
        owner,
        repo,
        title: string('Pull request title'),
        head: string('The branch that contains the changes'),
        base: string('The branch to merge into'),
        body: optional(string('Description in Markdown')),
        draft: optional(boolean('Open as a draft')),
      },
    ],
    [
      'get_pull_request',
      'Get a pull request: title, description, state, mergeability, head and base.',
      { owner, repo, pull_number: integer('Pull request number') },
    ],
    [
      'list_pull_requests',
      'List pull requests in a repository.',
      {
        owner,
        repo,
        state: optional(choice('Filter by state', ['open', 'closed', 'all'])),
        base: optional(string('Only PRs targeting this base branch')),
        per_page: limit,
      },
    ],
    [
      'merge_pull_request',
      'Merge a pull request.',
      {
        owner,
        repo,
        pull_number: integer('Pull request number'),
        merge_method: optional(choice('How to merge', ['merge', 'squash', 'rebase'])),
        commit_title: optional(string('Title of the merge commit')),
      },
    ],
    [
      'get_pull_request_diff',
      'Get the unified diff of a pull request (the changed files and lines).',
      { owner, repo, pull_number: integer('Pull request number') },
    ],
    [
      'request_reviewers',
      'Request reviews on a pull request from users or teams.',
      {
        owner,
        repo,
        pull_number: integer('Pull request number'),
        reviewers: list('Logins to request a review from', string('GitHub login')),
      },
    ],
    [
      'create_branch',
      'Create a new branch in a repository from an existing branch or commit.',
      {
        owner,
        repo,
        branch: string('Name of the new branch'),
        from_branch: optional(string('Source branch (default: the repository default branch)')),
      },
    ],
    [
      'list_commits',
      'List commits of a branch, optionally only those touching a path.',
      {
        owner,
        repo,
        sha: optional(string('Branch name or commit SHA to start from')),
        path: optional(string('Only commits containing this file path')),
        per_page: limit,
      },
    ],
    [
      'get_file_contents',
      'Get the contents of a file or directory from a GitHub repository at a given ref.',
      {
        owner,
        repo,
        path: string('Path to the file or directory'),
        ref: optional(string('Branch, tag or commit (default: default branch)')),
      },
    ],
    [
      'list_workflow_runs',
      'List GitHub Actions workflow runs for a repository, with their status and conclusion.',
      {
        owner,
        repo,
        branch: optional(string('Only runs for this branch')),
        status: optional(choice('Filter by status', ['queued', 'in_progress', 'completed', 'failure', 'success'])),
        per_page: limit,
      },
    ],
    [
      'rerun_workflow',
      'Re-run a GitHub Actions workflow run, or only its failed jobs.',
      {
        owner,
        repo,
        run_id: integer('The ID of the workflow run'),
        failed_jobs_only: optional(boolean('Re-run only the jobs that failed')),
      },
    ],
    [
      'get_workflow_run_logs',
      'Download the logs of the jobs of a GitHub Actions workflow run.',
      { owner, repo, run_id: integer('The ID of the workflow run'), job: optional(string('Only this job name')) },
    ],
    [
      'create_release',
      'Create a release for a tag, with release notes.',
      {
        owner,
        repo,
        tag_name: string('Tag to release, e.g. v1.4.0'),
        name: optional(string('Release title')),
        body: optional(string('Release notes in Markdown')),
        prerelease: optional(boolean('Mark as a pre-release')),
      },
    ],
  ],
  gitlab: [
    [
      'list_merge_requests',
      'List merge requests of a GitLab project.',
      {
        project_id: string('Project ID or URL-encoded path'),
        state: optional(choice('Filter by state', ['opened', 'closed', 'merged', 'all'])),
        limit,
      },
    ],
    [
      'create_merge_request',
      'Create a merge request in a GitLab project.',
      {
        project_id: string('Project ID or URL-encoded path'),
        source_branch: string('Source branch'),
        target_branch: string('Target branch'),
        title: string('Title of the merge request'),
        description: optional(string('Description')),
      },
    ],
    [
      'get_pipeline',
      'Get a GitLab CI pipeline with the status of each of its jobs.',
      { project_id: string('Project ID or URL-encoded path'), pipeline_id: integer('Pipeline ID') },
    ],
    [
      'retry_job',
      'Retry a failed or canceled job of a GitLab CI pipeline.',
      { project_id: string('Project ID or URL-encoded path'), job_id: integer('Job ID') },
    ],
    [
      'get_job_log',
      'Get the log (trace) output of a GitLab CI job.',
      {
        project_id: string('Project ID or URL-encoded path'),
        job_id: integer('Job ID'),
        tail_lines: optional(integer('Only the last N lines')),
      },
    ],
    [
      'list_issues',
      'List issues of a GitLab project, filtered by state, labels or milestone.',
      {
        project_id: string('Project ID or URL-encoded path'),
        state: optional(choice('State', ['opened', 'closed', 'all'])),
        labels: optional(string('Comma-separated labels')),
        milestone: optional(string('Milestone title')),
      },
    ],
  ],
  jira: [
    [
      'create_issue',
      'Create a Jira issue (story, bug, task or epic) in a project.',
      {
        project_key: string('Project key, e.g. PAY'),
        issue_type: choice('Issue type', ['Story', 'Bug', 'Task', 'Epic']),
        summary: string('One-line summary'),
        description: optional(string('Description (Jira wiki markup or Markdown)')),
        priority: optional(choice('Priority', ['Highest', 'High', 'Medium', 'Low'])),
      },
    ],
    ['get_issue', 'Get a Jira issue with its fields, status, assignee and recent comments.', { issue_key: issueKey }],
    [
      'search_issues',
      'Search Jira issues with JQL (Jira Query Language).',
      {
        jql: string('JQL query, e.g. project = PAY AND status = "In Progress"'),
        fields: optional(list('Fields to return', string('Field name'))),
        max_results: limit,
      },
    ],
    [
      'transition_issue',
      'Move a Jira issue to another status in its workflow (e.g. To Do → In Progress → Done).',
      {
        issue_key: issueKey,
        transition: string('Name or ID of the transition, e.g. "Done"'),
        comment: optional(string('Comment to add with the transition')),
      },
    ],
    ['add_comment', 'Add a comment to a Jira issue.', { issue_key: issueKey, body: string('Comment text') }],
    [
      'assign_issue',
      'Assign a Jira issue to a user, or unassign it.',
      { issue_key: issueKey, account_id: optional(string('Atlassian account ID of the assignee; omit to unassign')) },
    ],
    [
      'update_issue',
      'Update fields of a Jira issue: summary, description, labels, priority, story points, due date.',
      {
        issue_key: issueKey,
        fields: object('Fields to set', {
          summary: optional(string('Summary')),
          labels: optional(list('Labels', string('Label'))),
          story_points: optional(number('Estimate in story points')),
          duedate: optional(string('Due date, YYYY-MM-DD')),
        }),
      },
    ],
    [
      'list_sprints',
      'List the sprints of a Jira Scrum board (active, future and closed).',
      { board_id: integer('Board ID'), state: optional(choice('Sprint state', ['active', 'future', 'closed'])) },
    ],
    [
      'get_sprint_issues',
      'Get all issues in a sprint, with their status and assignee.',
      { sprint_id: integer('Sprint ID'), max_results: limit },
    ],
    [
      'link_issues',
      'Create a link between two Jira issues, such as "blocks" or "relates to".',
      {
        inward_issue: issueKey,
        outward_issue: string('Key of the other issue'),
        link_type: choice('Link type', ['Blocks', 'Relates', 'Duplicate', 'Clones']),
      },
    ],
    [
      'log_work',
      'Log time spent on a Jira issue (a worklog entry).',
      {
        issue_key: issueKey,
        time_spent: string('Time spent, e.g. "2h 30m"'),
        comment: optional(string('Worklog comment')),
        started: optional(string('When the work started, ISO 8601')),
      },
    ],
  ],
  confluence: [
    [
      'search',
      'Search Confluence content with CQL or plain text.',
      { query: string('Text or CQL query'), space_key: optional(string('Restrict to one space')), limit },
    ],
    [
      'get_page',
      'Get a Confluence page with its body in storage format or Markdown.',
      { page_id: string('Page ID'), format: optional(choice('Body format', ['storage', 'markdown'])) },
    ],
    [
      'create_page',
      'Create a new Confluence page in a space, optionally under a parent page.',
      {
        space_key: string('Space key'),
        title: string('Page title'),
        body: string('Page content in Markdown'),
        parent_id: optional(string('ID of the parent page')),
      },
    ],
    [
      'update_page',
      'Replace the title or body of an existing Confluence page (creates a new version).',
      {
        page_id: string('Page ID'),
        title: optional(string('New title')),
        body: string('New content in Markdown'),
        version_comment: optional(string('Note for the page history')),
      },
    ],
    [
      'list_spaces',
      'List the Confluence spaces the user can see.',
      { type: optional(choice('Space type', ['global', 'personal'])), limit },
    ],
    [
      'add_page_comment',
      'Add a footer comment to a Confluence page.',
      { page_id: string('Page ID'), body: string('Comment text') },
    ],
  ],
  linear: [
    [
      'create_issue',
      'Create an issue in a Linear team.',
      {
        team_id: string('Team ID or key'),
        title: string('Issue title'),
        description: optional(string('Markdown description')),
        priority: optional(integer('0 = none, 1 = urgent … 4 = low', { minimum: 0, maximum: 4 })),
      },
    ],
    [
      'list_issues',
      'List Linear issues assigned to a user or in a team, filtered by state.',
      {
        team_id: optional(string('Team ID or key')),
        assignee: optional(string('User ID or "me"')),
        state: optional(string('Workflow state name, e.g. "In Progress"')),
        limit,
      },
    ],
    [
      'update_issue',
      'Update a Linear issue: state, assignee, priority, estimate or labels.',
      {
        issue_id: string('Issue ID, e.g. ENG-412'),
        state: optional(string('New workflow state')),
        assignee_id: optional(string('New assignee')),
        estimate: optional(integer('Estimate points')),
      },
    ],
    [
      'list_cycles',
      'List the cycles (sprints) of a Linear team with their dates and progress.',
      { team_id: string('Team ID or key') },
    ],
    [
      'add_comment',
      'Comment on a Linear issue.',
      { issue_id: string('Issue ID, e.g. ENG-412'), body: string('Markdown comment') },
    ],
  ],
  slack: [
    [
      'post_message',
      'Post a message to a Slack channel.',
      {
        channel,
        text: string('Message text (Slack mrkdwn)'),
        blocks: optional(list('Block Kit blocks', object('A block', {}))),
      },
    ],
    [
      'reply_to_thread',
      'Reply in the thread of an existing Slack message.',
      { channel, thread_ts: string('Timestamp of the parent message'), text: string('Reply text') },
    ],
    [
      'list_channels',
      'List public and private Slack channels in the workspace.',
      { types: optional(string('Comma-separated: public_channel,private_channel')), limit, cursor },
    ],
    [
      'get_channel_history',
      'Get recent messages from a Slack channel.',
      { channel, oldest: optional(string('Only messages after this Unix timestamp')), limit },
    ],
    [
      'search_messages',
      'Search messages across the Slack workspace.',
      {
        query: string('Search query, supports in:#channel and from:@user'),
        sort: optional(choice('Sort order', ['score', 'timestamp'])),
        limit,
      },
    ],
    [
      'add_reaction',
      'Add an emoji reaction to a Slack message.',
      {
        channel,
        timestamp: string('Timestamp of the message'),
        name: string('Emoji name without colons, e.g. white_check_mark'),
      },
    ],
    [
      'upload_file',
      'Upload a file or text snippet to Slack channels.',
      {
        channels: list('Channels to share to', string('Channel ID')),
        content: string('File content'),
        filename: string('File name'),
        initial_comment: optional(string('Message to post with the file')),
      },
    ],
    ['set_channel_topic', 'Set the topic of a Slack channel.', { channel, topic: string('New topic') }],
    [
      'get_user_profile',
      "Get a Slack user's profile: name, title, email, time zone and status.",
      { user: string('User ID') },
    ],
    [
      'schedule_message',
      'Schedule a Slack message to be sent at a later time.',
      { channel, text: string('Message text'), post_at: integer('Unix timestamp when to send') },
    ],
  ],
  gmail: [
    [
      'send_email',
      "Send an email from the user's Gmail account.",
      {
        to: list('Recipients', string('Email address')),
        subject: string('Subject line'),
        body: string('Plain-text or HTML body'),
        cc: optional(list('CC recipients', string('Email address'))),
      },
    ],
    [
      'search_emails',
      'Search the mailbox with Gmail search operators (from:, subject:, newer_than:, has:attachment).',
      { query: string('Gmail search query'), max_results: limit },
    ],
    ['read_email', 'Read one email message: headers, body and attachment names.', { message_id: string('Message ID') }],
    [
      'create_draft',
      'Create an email draft without sending it.',
      { to: list('Recipients', string('Email address')), subject: string('Subject line'), body: string('Body') },
    ],
    [
      'reply_to_email',
      'Reply to an email message, keeping it in the same conversation thread.',
      {
        message_id: string('Message to reply to'),
        body: string('Reply body'),
        reply_all: optional(boolean('Reply to all recipients')),
      },
    ],
    [
      'modify_labels',
      'Add or remove labels on messages, e.g. archive (remove INBOX) or mark as read (remove UNREAD).',
      {
        message_ids: list('Messages to change', string('Message ID')),
        add: optional(list('Label IDs to add', string('Label ID'))),
        remove: optional(list('Label IDs to remove', string('Label ID'))),
      },
    ],
  ],
  google_calendar: [
    [
      'list_events',
      'List events on a Google Calendar between two times.',
      {
        calendar_id: optional(string('Calendar ID (default: primary)')),
        time_min: string('Lower bound, RFC 3339'),
        time_max: string('Upper bound, RFC 3339'),
        query: optional(string('Free-text filter')),
      },
    ],
    [
      'get_event',
      'Get one calendar event with attendees, location and conference link.',
      { calendar_id: optional(string('Calendar ID (default: primary)')), event_id: string('Event ID') },
    ],
    [
      'create_event',
      'Create a calendar event and invite attendees.',
      {
        calendar_id: optional(string('Calendar ID (default: primary)')),
        summary: string('Event title'),
        start: string('Start time, RFC 3339'),
        end: string('End time, RFC 3339'),
        attendees: optional(list('Guests to invite', string('Email address'))),
        add_video_conference: optional(boolean('Attach a Google Meet link')),
      },
    ],
    [
      'update_event',
      'Change an existing calendar event: time, title, attendees or description.',
      {
        event_id: string('Event ID'),
        start: optional(string('New start, RFC 3339')),
        end: optional(string('New end, RFC 3339')),
        summary: optional(string('New title')),
        send_updates: optional(choice('Notify guests', ['all', 'externalOnly', 'none'])),
      },
    ],
    [
      'delete_event',
      'Delete (cancel) a calendar event.',
      { event_id: string('Event ID'), send_updates: optional(choice('Notify guests', ['all', 'none'])) },
    ],
    [
      'find_free_time',
      'Find time slots when all the given people are free (free/busy lookup).',
      {
        attendees: list('People to check', string('Email address')),
        time_min: string('Search from, RFC 3339'),
        time_max: string('Search until, RFC 3339'),
        duration_minutes: integer('Length of the slot needed'),
      },
    ],
    [
      'respond_to_event',
      'Accept, decline or tentatively accept a meeting invitation.',
      {
        event_id: string('Event ID'),
        response: choice('Your answer', ['accepted', 'declined', 'tentative']),
        comment: optional(string('Note to the organizer')),
      },
    ],
  ],
  google_drive: [
    [
      'search_files',
      'Search Google Drive files by name, content or type.',
      { query: string('Drive search query or plain text'), mime_type: optional(string('Only this MIME type')), limit },
    ],
    [
      'read_file',
      'Read the contents of a Google Drive file; Docs, Sheets and Slides are exported as text.',
      { file_id: string('File ID') },
    ],
    [
      'upload_file',
      'Upload a new file to Google Drive.',
      { name: string('File name'), content: string('File content'), folder_id: optional(string('Parent folder ID')) },
    ],
    [
      'share_file',
      'Share a Drive file or folder with people, setting their role.',
      {
        file_id: string('File ID'),
        email: string('Who to share with'),
        role: choice('Access level', ['reader', 'commenter', 'writer']),
      },
    ],
    [
      'create_folder',
      'Create a folder in Google Drive.',
      { name: string('Folder name'), parent_id: optional(string('Parent folder ID')) },
    ],
    ['delete_file', 'Move a Google Drive file or folder to the trash.', { file_id: string('File ID') }],
  ],
  notion: [
    [
      'search',
      'Search Notion pages and databases by title.',
      { query: string('Text to search for'), filter: optional(choice('Object type', ['page', 'database'])) },
    ],
    ['get_page', 'Retrieve a Notion page and its content blocks.', { page_id: string('Page ID') }],
    [
      'create_page',
      'Create a Notion page in a parent page or database.',
      {
        parent_id: string('Parent page or database ID'),
        title: string('Page title'),
        content: optional(string('Markdown content')),
      },
    ],
    [
      'query_database',
      'Query a Notion database with filters and sorts.',
      {
        database_id: string('Database ID'),
        filter: optional(object('Notion filter object', {})),
        sorts: optional(list('Sort specifications', object('A sort', {}))),
      },
    ],
    [
      'append_blocks',
      'Append content blocks (paragraphs, to-dos, headings) to the end of a Notion page.',
      { page_id: string('Page ID'), content: string('Markdown content to append') },
    ],
  ],
  kubernetes: [
    [
      'list_pods',
      'List pods in a namespace with their phase, restarts, age and node.',
      {
        namespace,
        label_selector: optional(string('Label selector, e.g. app=checkout')),
        field_selector: optional(string('Field selector, e.g. status.phase=Running')),
      },
    ],
    [
      'get_pod_logs',
      'Fetch the logs of a container in a pod.',
      {
        name: string('Pod name'),
        namespace,
        container: optional(string('Container name (required for multi-container pods)')),
        tail_lines: optional(integer('Number of lines from the end')),
        previous: optional(boolean('Logs of the previous, terminated container instance')),
        since_seconds: optional(integer('Only logs newer than this many seconds')),
      },
    ],
    [
      'describe_pod',
      'Describe a pod: containers, image, state, conditions, resource requests and recent events.',
      { name: string('Pod name'), namespace },
    ],
    [
      'delete_pod',
      'Delete a pod (its controller will recreate it).',
      { name: string('Pod name'), namespace, grace_period_seconds: optional(integer('Grace period before killing')) },
    ],
    [
      'list_deployments',
      'List deployments with desired, ready and available replica counts.',
      { namespace, label_selector: optional(string('Label selector')) },
    ],
    [
      'scale_deployment',
      'Scale a deployment to a number of replicas.',
      { name: string('Deployment name'), namespace, replicas: integer('Desired replica count', { minimum: 0 }) },
    ],
    [
      'rollout_restart',
      'Restart a deployment, statefulset or daemonset with a rolling update.',
      {
        kind: choice('Resource kind', ['deployment', 'statefulset', 'daemonset']),
        name: string('Resource name'),
        namespace,
      },
    ],
    [
      'rollout_status',
      'Watch the status of a rollout until it completes or fails.',
      {
        kind: choice('Resource kind', ['deployment', 'statefulset', 'daemonset']),
        name: string('Resource name'),
        namespace,
        timeout_seconds: optional(integer('How long to wait')),
      },
    ],
    [
      'rollout_undo',
      'Roll back a deployment to its previous revision (or a given one).',
      { name: string('Deployment name'), namespace, to_revision: optional(integer('Revision to roll back to')) },
    ],
    [
      'apply_manifest',
      'Apply a Kubernetes manifest (YAML), creating or updating the resources in it.',
      {
        manifest: string('YAML manifest, one or more documents'),
        namespace,
        dry_run: optional(boolean('Validate on the server without persisting')),
      },
    ],
    [
      'get_events',
      'List recent cluster events (warnings such as FailedScheduling, BackOff, OOMKilled).',
      {
        namespace,
        involved_object: optional(string('Only events about this object name')),
        type: optional(choice('Event type', ['Normal', 'Warning'])),
      },
    ],
    [
      'list_nodes',
      'List cluster nodes with status, roles, version and capacity.',
      { label_selector: optional(string('Label selector')) },
    ],
    [
      'top_pods',
      'Show current CPU and memory usage of pods (metrics-server).',
      { namespace, sort_by: optional(choice('Sort by', ['cpu', 'memory'])) },
    ],
    [
      'exec_in_pod',
      'Run a command inside a container of a running pod.',
      {
        name: string('Pod name'),
        namespace,
        container: optional(string('Container name')),
        command: list('Command and arguments', string('Argument')),
      },
    ],
    [
      'get_resource',
      'Get any Kubernetes resource as YAML (configmap, service, ingress, secret metadata…).',
      { kind: string('Resource kind, e.g. configmap'), name: string('Resource name'), namespace },
    ],
  ],
  aws: [
    [
      'ec2_describe_instances',
      'Describe EC2 instances with their state, type, IP addresses and tags.',
      {
        instance_ids: optional(list('Instance IDs', string('Instance ID'))),
        filters: optional(list('Filters like tag:Name=web', string('Filter'))),
        region,
      },
    ],
    [
      'ec2_start_instances',
      'Start stopped EC2 instances.',
      { instance_ids: list('Instance IDs', string('Instance ID')), region },
    ],
    [
      'ec2_stop_instances',
      'Stop running EC2 instances.',
      { instance_ids: list('Instance IDs', string('Instance ID')), force: optional(boolean('Force stop')), region },
    ],
    ['s3_list_buckets', 'List the S3 buckets in the account.', { region }],
    [
      's3_list_objects',
      'List objects in an S3 bucket under a prefix.',
      { bucket: string('Bucket name'), prefix: optional(string('Key prefix')), max_keys: limit },
    ],
    [
      's3_get_object',
      'Download an object from S3 and return its contents.',
      { bucket: string('Bucket name'), key: string('Object key') },
    ],
    [
      's3_put_object',
      'Upload content to S3 as an object.',
      {
        bucket: string('Bucket name'),
        key: string('Object key'),
        body: string('Object content'),
        content_type: optional(string('MIME type')),
      },
    ],
    ['lambda_list_functions', 'List Lambda functions with runtime, memory and last modified time.', { region }],
    [
      'lambda_invoke',
      'Invoke a Lambda function synchronously with a JSON payload and return its response.',
      { function_name: string('Function name or ARN'), payload: optional(string('JSON payload')), region },
    ],
    [
      'cloudwatch_get_metric_statistics',
      'Get statistics for a CloudWatch metric over a time range (e.g. CPUUtilization of an instance).',
      {
        namespace: string('Metric namespace, e.g. AWS/EC2'),
        metric_name: string('Metric name'),
        dimensions: optional(list('Dimensions as Name=Value', string('Dimension'))),
        statistic: choice('Statistic', ['Average', 'Sum', 'Maximum', 'Minimum', 'SampleCount']),
        period_seconds: integer('Granularity in seconds'),
        ...timeRange,
      },
    ],
    [
      'cloudwatch_logs_filter_events',
      'Search a CloudWatch Logs log group for events matching a filter pattern.',
      {
        log_group: string('Log group name, e.g. /aws/lambda/resize'),
        filter_pattern: optional(string('CloudWatch Logs filter pattern')),
        ...timeRange,
        limit,
      },
    ],
    [
      'rds_describe_db_instances',
      'Describe RDS database instances: engine, class, status, storage and endpoint.',
      { db_instance_identifier: optional(string('Only this instance')), region },
    ],
    [
      'rds_create_snapshot',
      'Create a manual snapshot of an RDS database instance.',
      {
        db_instance_identifier: string('Instance identifier'),
        snapshot_identifier: string('Name of the new snapshot'),
        region,
      },
    ],
    [
      'iam_list_users',
      'List IAM users with their creation date and last password use.',
      { path_prefix: optional(string('Only users under this path')) },
    ],
    [
      'route53_change_record',
      'Create, update (UPSERT) or delete a DNS record in a Route 53 hosted zone.',
      {
        hosted_zone_id: string('Hosted zone ID'),
        action: choice('Change action', ['CREATE', 'UPSERT', 'DELETE']),
        name: string('Record name, e.g. api.example.com'),
        type: choice('Record type', ['A', 'AAAA', 'CNAME', 'TXT', 'MX']),
        value: string('Record value'),
        ttl: optional(integer('TTL in seconds')),
      },
    ],
    [
      'cost_explorer_get_cost',
      'Get AWS cost and usage for a period, grouped by service, account or tag.',
      {
        start: string('Start date, YYYY-MM-DD'),
        end: string('End date, YYYY-MM-DD'),
        granularity: choice('Granularity', ['DAILY', 'MONTHLY']),
        group_by: optional(choice('Group by', ['SERVICE', 'LINKED_ACCOUNT', 'TAG'])),
      },
    ],
    [
      'sqs_get_queue_attributes',
      'Get attributes of an SQS queue, such as the approximate number of messages waiting.',
      { queue_url: string('Queue URL'), region },
    ],
    [
      'ecs_update_service',
      'Update an ECS service: desired task count, task definition, or force a new deployment.',
      {
        cluster: string('Cluster name'),
        service: string('Service name'),
        desired_count: optional(integer('Number of tasks')),
        force_new_deployment: optional(boolean('Redeploy with the same task definition')),
        region,
      },
    ],
    [
      'secrets_get_value',
      'Read the value of a secret from AWS Secrets Manager.',
      { secret_id: string('Secret name or ARN'), region },
    ],
  ],
  docker: [
    [
      'list_containers',
      'List Docker containers on the host with image, status and ports.',
      { all: optional(boolean('Include stopped containers')) },
    ],
    [
      'container_logs',
      'Get the logs of a Docker container.',
      {
        container: string('Container name or ID'),
        tail: optional(integer('Lines from the end')),
        since: optional(string('Only logs since, e.g. 10m')),
      },
    ],
    [
      'build_image',
      'Build a Docker image from a Dockerfile in a context directory.',
      {
        context: string('Build context path'),
        tag: string('Image tag, e.g. app:latest'),
        dockerfile: optional(string('Path to the Dockerfile')),
      },
    ],
    [
      'run_container',
      'Run a new container from an image.',
      {
        image: string('Image name'),
        name: optional(string('Container name')),
        ports: optional(list('Port mappings host:container', string('Mapping'))),
        env: optional(list('Environment variables KEY=value', string('Variable'))),
        detach: optional(boolean('Run in the background')),
      },
    ],
    ['stop_container', 'Stop a running Docker container.', { container: string('Container name or ID') }],
    [
      'exec',
      'Execute a command in a running Docker container.',
      { container: string('Container name or ID'), command: list('Command and arguments', string('Argument')) },
    ],
  ],
  terraform: [
    [
      'plan',
      'Run terraform plan in a working directory and return the proposed changes.',
      {
        working_dir: string('Directory with the Terraform configuration'),
        var_file: optional(string('Variables file')),
        target: optional(list('Resource addresses to target', string('Address'))),
      },
    ],
    [
      'apply',
      'Apply a Terraform configuration (or a saved plan).',
      {
        working_dir: string('Directory with the Terraform configuration'),
        plan_file: optional(string('Saved plan file')),
        auto_approve: optional(boolean('Skip interactive approval')),
      },
    ],
    [
      'state_list',
      'List the resources tracked in the Terraform state.',
      { working_dir: string('Directory with the Terraform configuration'), filter: optional(string('Address prefix')) },
    ],
    [
      'validate',
      'Validate the syntax and internal consistency of a Terraform configuration.',
      { working_dir: string('Directory with the Terraform configuration') },
    ],
    [
      'output',
      'Read the output values of a Terraform root module from its state.',
      { working_dir: string('Directory with the Terraform configuration'), name: optional(string('Only this output')) },
    ],
  ],
  postgres: [
    [
      'query',
      'Run a read-only SQL query against the PostgreSQL database and return the rows.',
      { sql: string('SQL SELECT statement'), params: optional(list('Positional parameters', string('Value'))) },
    ],
    [
      'execute',
      'Execute a SQL statement that changes data or schema (INSERT, UPDATE, DELETE, DDL).',
      { sql: string('SQL statement'), params: optional(list('Positional parameters', string('Value'))) },
    ],
    [
      'list_tables',
      'List tables in a schema with their estimated row counts and sizes.',
      { schema: optional(string('Schema name (default: public)')) },
    ],
    [
      'describe_table',
      'Describe a table: columns, types, nullability, defaults, indexes and foreign keys.',
      { table: string('Table name, optionally schema-qualified') },
    ],
    [
      'explain_query',
      'Show the execution plan of a query (EXPLAIN, optionally ANALYZE) to find slow parts.',
      { sql: string('The query to explain'), analyze: optional(boolean('Actually run it and show timings')) },
    ],
    [
      'list_active_queries',
      'List currently running queries and sessions (pg_stat_activity) with their duration and wait events.',
      { min_duration_seconds: optional(integer('Only queries running longer than this')) },
    ],
    [
      'cancel_query',
      'Cancel (or terminate) a running backend by its process ID.',
      {
        pid: integer('Backend process ID'),
        terminate: optional(boolean('Terminate the whole session instead of cancelling the query')),
      },
    ],
  ],
  mongodb: [
    [
      'find',
      'Find documents in a MongoDB collection matching a filter.',
      {
        database: string('Database name'),
        collection: string('Collection name'),
        filter: optional(object('Query filter', {})),
        projection: optional(object('Fields to include or exclude', {})),
        limit,
      },
    ],
    [
      'aggregate',
      'Run an aggregation pipeline on a MongoDB collection.',
      {
        database: string('Database name'),
        collection: string('Collection name'),
        pipeline: list('Aggregation stages', object('A stage', {})),
      },
    ],
    ['list_collections', 'List the collections of a MongoDB database.', { database: string('Database name') }],
    [
      'update_many',
      'Update all documents matching a filter in a MongoDB collection.',
      {
        database: string('Database name'),
        collection: string('Collection name'),
        filter: object('Query filter', {}),
        update: object('Update operators, e.g. {"$set": {...}}', {}),
      },
    ],
  ],
  redis: [
    ['get', 'Get the value of a Redis key.', { key: string('Key') }],
    [
      'set',
      'Set a Redis key to a value, with an optional expiry.',
      { key: string('Key'), value: string('Value'), ttl_seconds: optional(integer('Expire after this many seconds')) },
    ],
    [
      'delete_keys',
      'Delete Redis keys matching a glob pattern (scans, does not block).',
      { pattern: string('Glob pattern, e.g. session:*') },
    ],
    [
      'info',
      'Get Redis server information and statistics: memory use, clients, keyspace, hit rate.',
      { section: optional(choice('Section', ['memory', 'clients', 'stats', 'keyspace', 'replication'])) },
    ],
  ],
  datadog: [
    [
      'query_metrics',
      'Query Datadog timeseries metrics with a metrics query, e.g. avg:system.cpu.user{service:api}.',
      { query: string('Datadog metrics query'), ...timeRange },
    ],
    [
      'list_monitors',
      'List Datadog monitors and their current state (OK, Alert, Warn, No Data).',
      {
        tags: optional(list('Only monitors with these tags', string('Tag'))),
        state: optional(choice('Filter by state', ['Alert', 'Warn', 'No Data', 'OK'])),
      },
    ],
    [
      'mute_monitor',
      'Mute a Datadog monitor, optionally until a given time (e.g. during maintenance).',
      { monitor_id: integer('Monitor ID'), end: optional(string('Unmute at this time, ISO 8601')) },
    ],
    [
      'search_logs',
      'Search Datadog logs with the log search syntax.',
      { query: string('Log query, e.g. service:api status:error'), ...timeRange, limit },
    ],
    ['get_dashboard', 'Get a Datadog dashboard definition with its widgets.', { dashboard_id: string('Dashboard ID') }],
    [
      'list_apm_services',
      'List APM services with their request rate, error rate and latency percentiles.',
      { env: optional(string('Environment, e.g. prod')) },
    ],
    [
      'schedule_downtime',
      'Schedule a Datadog downtime that silences monitors matching a scope for a period.',
      {
        scope: string('Scope, e.g. env:prod service:api'),
        start: optional(string('Start (default: now)')),
        end: string('End time, ISO 8601'),
        message: optional(string('Why')),
      },
    ],
  ],
  prometheus: [
    [
      'query',
      'Evaluate a PromQL expression at a single point in time.',
      { query: string('PromQL expression'), time: optional(string('Evaluation time (default: now)')) },
    ],
    [
      'query_range',
      'Evaluate a PromQL expression over a range of time and return the series.',
      {
        query: string('PromQL expression'),
        start: string('Range start'),
        end: string('Range end'),
        step: string('Resolution step, e.g. 30s'),
      },
    ],
    [
      'list_alerts',
      'List the alerts that are currently firing or pending in Prometheus.',
      { state: optional(choice('Alert state', ['firing', 'pending'])) },
    ],
  ],
  grafana: [
    [
      'search_dashboards',
      'Search Grafana dashboards by title or tag.',
      { query: optional(string('Title text')), tag: optional(list('Tags', string('Tag'))) },
    ],
    [
      'create_annotation',
      'Add an annotation to Grafana dashboards (e.g. mark a deploy or incident on the graphs).',
      {
        text: string('Annotation text'),
        tags: optional(list('Tags', string('Tag'))),
        time: optional(string('When (default: now)')),
        dashboard_uid: optional(string('Only on this dashboard')),
      },
    ],
    [
      'list_alert_rules',
      'List Grafana alert rules with their state and labels.',
      { folder: optional(string('Folder name')) },
    ],
  ],
  pagerduty: [
    [
      'list_incidents',
      'List PagerDuty incidents filtered by status, service or urgency.',
      {
        statuses: optional(list('Statuses', choice('Status', ['triggered', 'acknowledged', 'resolved']))),
        service_ids: optional(list('Services', string('Service ID'))),
        since: optional(string('Start of the range')),
      },
    ],
    [
      'acknowledge_incident',
      'Acknowledge a PagerDuty incident so it stops escalating.',
      { incident_id: string('Incident ID') },
    ],
    [
      'resolve_incident',
      'Resolve a PagerDuty incident.',
      { incident_id: string('Incident ID'), resolution: optional(string('Resolution note')) },
    ],
    [
      'get_oncalls',
      'Get who is on call now (or at a time) for escalation policies or schedules.',
      {
        schedule_ids: optional(list('Schedules', string('Schedule ID'))),
        escalation_policy_ids: optional(list('Escalation policies', string('Policy ID'))),
        time: optional(string('When (default: now)')),
      },
    ],
    [
      'create_incident',
      'Trigger a new PagerDuty incident on a service, paging its on-call responder.',
      {
        service_id: string('Service ID'),
        title: string('Incident title'),
        urgency: optional(choice('Urgency', ['high', 'low'])),
        details: optional(string('Details for the responder')),
      },
    ],
    [
      'add_note',
      'Add a note to a PagerDuty incident timeline.',
      { incident_id: string('Incident ID'), content: string('Note text') },
    ],
  ],
  sentry: [
    [
      'list_issues',
      'List Sentry issues (grouped errors) of a project, sorted by frequency or recency.',
      {
        organization: string('Organization slug'),
        project: string('Project slug'),
        query: optional(string('Search, e.g. is:unresolved level:error')),
        sort: optional(choice('Sort', ['date', 'freq', 'new', 'user'])),
      },
    ],
    [
      'get_issue',
      'Get a Sentry issue with its latest event: exception, stack trace, tags and breadcrumbs.',
      { issue_id: string('Issue ID or short ID, e.g. API-1F3') },
    ],
    [
      'update_issue',
      'Resolve, ignore or assign a Sentry issue.',
      {
        issue_id: string('Issue ID'),
        status: optional(choice('New status', ['resolved', 'ignored', 'unresolved'])),
        assigned_to: optional(string('User or team')),
      },
    ],
    [
      'list_releases',
      'List Sentry releases with their deploy times and new issue counts.',
      { organization: string('Organization slug'), project: optional(string('Project slug')) },
    ],
    [
      'list_projects',
      'List the Sentry projects of an organization with their platform and team.',
      { organization: string('Organization slug') },
    ],
  ],
  circleci: [
    [
      'trigger_pipeline',
      'Trigger a CircleCI pipeline on a branch, with optional parameters.',
      {
        project_slug: string('e.g. gh/org/repo'),
        branch: string('Branch to build'),
        parameters: optional(object('Pipeline parameters', {})),
      },
    ],
    [
      'get_pipeline_workflows',
      'Get the workflows and job statuses of a CircleCI pipeline.',
      { pipeline_id: string('Pipeline ID') },
    ],
    [
      'get_failed_tests',
      'Get the test results of a CircleCI job, with the failing tests and their messages.',
      { project_slug: string('e.g. gh/org/repo'), job_number: integer('Job number') },
    ],
    [
      'get_job_artifacts',
      'List the artifacts a CircleCI job stored (reports, binaries, screenshots).',
      { project_slug: string('e.g. gh/org/repo'), job_number: integer('Job number') },
    ],
  ],
  jenkins: [
    [
      'build_job',
      'Start a Jenkins job build with parameters.',
      { job: string('Job name or folder/job path'), parameters: optional(object('Build parameters', {})) },
    ],
    [
      'get_build_console',
      'Get the console output of a Jenkins build.',
      { job: string('Job name'), build_number: optional(integer('Build number (default: last build)')) },
    ],
    [
      'list_builds',
      'List recent builds of a Jenkins job with result and duration.',
      { job: string('Job name'), limit },
    ],
  ],
  stripe: [
    [
      'search_customers',
      'Search Stripe customers by email, name or metadata.',
      { query: string('Stripe search query, e.g. email:"a@b.com"'), limit },
    ],
    [
      'list_charges',
      'List Stripe charges (payments) for a customer or period.',
      { customer: optional(string('Customer ID')), created_after: optional(integer('Unix timestamp')), limit },
    ],
    [
      'create_refund',
      'Refund a Stripe charge or payment intent, fully or partially.',
      {
        payment_intent: string('Payment intent ID'),
        amount: optional(integer('Amount in cents (default: full)')),
        reason: optional(choice('Reason', ['duplicate', 'fraudulent', 'requested_by_customer'])),
      },
    ],
    [
      'list_invoices',
      'List Stripe invoices with their status and amount due.',
      {
        customer: optional(string('Customer ID')),
        status: optional(choice('Status', ['draft', 'open', 'paid', 'uncollectible', 'void'])),
        limit,
      },
    ],
    [
      'cancel_subscription',
      'Cancel a Stripe subscription now or at the end of the billing period.',
      {
        subscription_id: string('Subscription ID'),
        at_period_end: optional(boolean('Cancel when the current period ends')),
      },
    ],
  ],
  zendesk: [
    [
      'search_tickets',
      'Search Zendesk support tickets.',
      { query: string('Zendesk search, e.g. status:open requester:a@b.com'), limit },
    ],
    ['get_ticket', 'Get a Zendesk ticket with its conversation.', { ticket_id: integer('Ticket ID') }],
    [
      'update_ticket',
      'Update a Zendesk ticket: status, priority, assignee, tags.',
      {
        ticket_id: integer('Ticket ID'),
        status: optional(choice('Status', ['open', 'pending', 'solved'])),
        priority: optional(choice('Priority', ['low', 'normal', 'high', 'urgent'])),
        assignee_email: optional(string('Agent email')),
      },
    ],
    [
      'add_ticket_comment',
      'Reply to a Zendesk ticket, publicly or as an internal note.',
      {
        ticket_id: integer('Ticket ID'),
        body: string('Comment text'),
        public: optional(boolean('Visible to the requester')),
      },
    ],
  ],
  salesforce: [
    ['soql_query', 'Run a SOQL query against Salesforce and return the records.', { query: string('SOQL query') }],
    [
      'get_record',
      'Get a Salesforce record (Account, Contact, Opportunity, Lead…) by ID.',
      { object_type: string('sObject type'), record_id: string('Record ID') },
    ],
    [
      'update_record',
      'Update fields of a Salesforce record, e.g. move an opportunity to another stage.',
      { object_type: string('sObject type'), record_id: string('Record ID'), fields: object('Fields to set', {}) },
    ],
  ],
  filesystem: [
    [
      'read_text_file',
      'Read the complete contents of a text file from the allowed directories.',
      { path: string('File path'), head: optional(integer('Only the first N lines')) },
    ],
    [
      'write_file',
      'Create a new file or overwrite an existing one with new content.',
      { path: string('File path'), content: string('Content to write') },
    ],
    [
      'list_directory',
      'List the files and directories in a path, marked [FILE] or [DIR].',
      { path: string('Directory path') },
    ],
    [
      'move_file',
      'Move or rename a file or directory.',
      { source: string('Current path'), destination: string('New path') },
    ],
    [
      'search_files',
      'Recursively search for files and directories whose names match a pattern.',
      {
        path: string('Where to start'),
        pattern: string('Name pattern'),
        exclude_patterns: optional(list('Patterns to skip', string('Pattern'))),
      },
    ],
  ],
  playwright: [
    ['navigate', 'Open a URL in the browser page.', { url: string('Address to open') }],
    [
      'screenshot',
      'Take a screenshot of the current page or of one element.',
      {
        selector: optional(string('CSS selector of the element')),
        full_page: optional(boolean('Capture the whole scrollable page')),
      },
    ],
    ['click', 'Click an element on the page.', { selector: string('CSS selector or text of the element') }],
    [
      'fill',
      'Type text into an input field on the page.',
      { selector: string('CSS selector of the field'), value: string('Text to type') },
    ],
    [
      'get_text',
      'Get the visible text content of the page or an element.',
      { selector: optional(string('CSS selector (default: the whole page)')) },
    ],
  ],
  fetch: [
    [
      'fetch_url',
      'Fetch a URL from the internet and return its content as Markdown.',
      { url: string('URL to fetch'), max_length: optional(integer('Maximum characters to return')) },
    ],
  ],
  brave_search: [
    [
      'web_search',
      'Search the web and return the top results with titles, URLs and snippets.',
      { query: string('Search query'), count: optional(integer('Number of results', { maximum: 20 })) },
    ],
  ],
  figma: [
    [
      'get_file',
      "Get a Figma file's document tree: pages, frames and components.",
      { file_key: string('File key from the Figma URL') },
    ],
    [
      'export_images',
      'Export frames or nodes of a Figma file as PNG, SVG or PDF images.',
      {
        file_key: string('File key'),
        node_ids: list('Nodes to export', string('Node ID')),
        format: optional(choice('Image format', ['png', 'svg', 'pdf'])),
      },
    ],
  ],
  twilio: [
    [
      'send_sms',
      'Send an SMS text message to a phone number.',
      { to: string('Phone number in E.164 format'), body: string('Message text') },
    ],
  ],
  deepl: [
    [
      'translate_text',
      'Translate text into another language.',
      {
        text: string('Text to translate'),
        target_lang: string('Target language code, e.g. DE, FR, JA'),
        source_lang: optional(string('Source language (default: detect)')),
      },
    ],
  ],
};

/** The catalogue as registry tools: `mcp__<server>__<tool>` names and plain JSON Schemas. */
export function fixtureTools(): FixtureTool[] {
  return Object.entries(catalogue).flatMap(([server, tools]) =>
    tools.map(([tool, description, properties]) => ({
      name: `mcp__${server}__${tool}`,
      description,
      inputSchema: objectSchema(properties),
    })),
  );
}

function objectSchema(properties: Record<string, Property>): FixtureTool['inputSchema'] {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, plain(property)])),
    required: Object.entries(properties)
      .filter(([, property]) => property.optional !== true)
      .map(([key]) => key),
  };
}

function plain(property: Property): Record<string, unknown> {
  const { optional: _optional, properties, items, ...rest } = property;
  return {
    ...rest,
    ...(items ? { items: plain(items as Property) } : {}),
    ...(properties ? objectSchema(properties as Record<string, Property>) : {}),
  };
}

const output = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tools.json');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tools = fixtureTools();
  if (tools.length !== 200) throw new Error(`the catalogue has ${tools.length} tools, not 200`);
  await writeFile(output, `${JSON.stringify(tools, null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), output)} (${tools.length} tools)\n`);
}
