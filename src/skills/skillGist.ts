/**
 * The one-line gist of a staged skill_manage call, as the Pending view lists it, e.g.
 * "patch 'git-style' SKILL.md (+2/-1 lines)". The pending store itself is generic
 * (tools/pendingWrites.ts); memory writes its own gists.
 */
function lineCount(text: string | undefined): number {
  return text ? text.split('\n').length : 0;
}

function sizeLabel(text: string): string {
  return text.length < 1024 ? `${text.length} chars` : `${Math.floor(text.length / 1024) + 1} KB`;
}

export function skillGist(args: Record<string, unknown>, description = ''): string {
  const name = String(args.name ?? '');
  const action = String(args.action ?? '');
  switch (action) {
    case 'create':
    case 'edit': {
      const verb = action === 'create' ? 'create' : 'rewrite';
      return `${verb} '${name}' — ${description.slice(0, 140)} (${sizeLabel(String(args.content ?? ''))})`;
    }
    case 'patch':
      return `patch '${name}' ${String(args.file_path ?? 'SKILL.md')} (+${lineCount(args.new_string as string)}/-${lineCount(args.old_string as string)} lines)`;
    case 'write_file':
      return `write ${String(args.file_path)} in '${name}'`;
    case 'remove_file':
      return `remove ${String(args.file_path)} from '${name}'`;
    case 'delete':
      return `delete skill '${name}'`;
    default:
      return `${action} '${name}'`;
  }
}
