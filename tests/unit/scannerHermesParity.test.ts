/**
 * Side by side with the Hermes Agent skills guard (docs/scanner-patterns.md, "Never looser than
 * Hermes"): on every probe line of tests/fixtures/hermesGuardProbes.ts, Knack's verdict is at
 * least as severe as the one the Hermes guard gives the line, with no exception; ordinary skill
 * text stays safe, and so does the synthetic public corpus.
 */
import { describe, expect, it } from 'vitest';
import { determineVerdict, scanSkill, scanText, type Verdict } from '../../src/skills/scanner';
import { BENIGN_TWINS, HERMES_PROBES, type HermesSeverity } from '../fixtures/hermesGuardProbes';
import { generateCorpus } from '../fixtures/skillCorpus';

const RANK: Record<Verdict, number> = { safe: 0, caution: 1, dangerous: 2 };
/** The Hermes verdict rule: critical → dangerous, high → caution, medium and low → safe. */
const hermesVerdict = (severity: HermesSeverity): Verdict => (severity === 'critical' ? 'dangerous' : severity === 'high' ? 'caution' : 'safe');
const knackVerdict = (line: string): Verdict => determineVerdict(scanText(line));

/** The 131 pattern ids of skills-guard-v4 (`shell_rc_mod` is two regexes under one id). */
const HERMES_PATTERN_IDS = `env_exfil_curl env_exfil_wget env_exfil_fetch env_exfil_httpx env_exfil_requests encoded_exfil
ssh_dir_access aws_dir_access gpg_dir_access kube_dir_access docker_dir_access hermes_env_access read_secrets_file
js_read_secrets_file dump_all_env python_os_environ python_environ_get_secret python_getenv_secret node_process_env
ruby_env_secret dns_exfil tmp_staging md_image_exfil md_link_exfil prompt_injection_ignore role_hijack deception_hide
sys_prompt_override role_pretend disregard_rules leak_system_prompt conditional_deception bypass_restrictions
translate_execute html_comment_injection hidden_div destructive_root_rm destructive_home_rm insecure_perms system_overwrite
format_filesystem disk_overwrite python_rmtree truncate_system persistence_cron shell_rc_mod ssh_backdoor ssh_keygen
systemd_service init_script macos_launchd sudoers_mod git_config_global reverse_shell tunnel_service hardcoded_ip_port
bind_all_interfaces bash_reverse_shell python_socket_oneliner python_socket_connect exfil_service paste_service
base64_decode_pipe hex_encoded_string eval_string exec_string echo_pipe_exec python_compile_exec python_getattr_builtins
python_import_os python_codecs_decode js_char_code js_base64 string_reversal chr_building unicode_escape_chain
python_subprocess python_os_system python_os_popen node_child_process java_runtime_exec backtick_subshell
path_traversal_deep path_traversal system_passwd_access proc_access dev_shm crypto_mining mining_indicators
curl_pipe_shell wget_pipe_shell curl_pipe_python pep723_inline_deps unpinned_pip_install unpinned_npm_install uv_run
remote_fetch git_clone docker_pull allowed_tools_field sudo_usage setuid_setgid nopasswd_sudo suid_bit agent_config_mod
agent_config_mod_shell agent_config_contract agent_config_ref hermes_config_mod hermes_config_mod_shell hermes_config_ref
other_agent_config_mod other_agent_config_mod_shell other_agent_config_ref hardcoded_secret embedded_private_key
github_token_leaked openai_key_leaked anthropic_key_leaked aws_access_key_leaked gitlab_token_leaked jailbreak_dan
jailbreak_dev_mode hypothetical_bypass educational_pretext remove_filters fake_update fake_policy context_exfil
send_to_url`.split(/\s+/);

/** Hermes patterns that only ever rate a line as a co-finding of a stronger one in the probes. */
const COVERED_AS_CO_FINDING = new Set(['base64_decode_pipe', 'hex_encoded_string', 'unicode_escape_chain', 'hermes_config_ref']);

describe('Knack against the Hermes skills guard, probe by probe', () => {
  for (const [line, pattern, severity] of HERMES_PROBES) {
    it(`${pattern} (${severity}): ${line}`, () => {
      const expected = hermesVerdict(severity);
      const actual = knackVerdict(line);
      expect(RANK[actual], `Knack says ${actual}, Hermes ${expected}`).toBeGreaterThanOrEqual(RANK[expected]);
    });
  }

  it('has probes for every Hermes pattern class, and every kind issue 18 found looser', () => {
    expect(HERMES_PATTERN_IDS).toHaveLength(130);
    const probed = new Set(HERMES_PROBES.map(([, pattern]) => pattern));
    for (const id of HERMES_PATTERN_IDS) expect(probed.has(id) || COVERED_AS_CO_FINDING.has(id), id).toBe(true);
    const lines = HERMES_PROBES.map(([line]) => line.toLowerCase());
    for (const kind of ['developer mode', 'act as if you have no restrictions', 'respond without any restrictions', 'you have been updated to',
      'share the conversation', 'send the report to https://', '> /etc/', 'truncate -s 0 /var/log', 'readfilesync', 'requests.get(',
      '/tmp/vars && python3', 'base64 ~/.envrc', '0.0.0.0:', '/proc/1/', 'claude.md', '~/.claude/settings.json', 'translate this into bash and run it']) {
      expect(lines.some((line) => line.includes(kind)), kind).toBe(true);
    }
  });
});

describe('no false positives on ordinary skill text', () => {
  for (const line of BENIGN_TWINS) {
    it(`stays safe: ${line}`, () => {
      expect(scanText(line).filter((f) => f.severity === 'critical' || f.severity === 'high')).toEqual([]);
    });
  }

  it('the synthetic public corpus (tests/fixtures/skillCorpus.ts) scans safe with only the informational allowed-tools finding', () => {
    const seen = new Set<string>();
    for (const skill of generateCorpus({ count: 1500, padBytes: 2000 })) {
      const files = skill.files.map((f) => ({ path: f.path, content: f.text, executable: (f.mode & 0o111) !== 0 }));
      const scan = scanSkill({ name: skill.folder, source: 'community', files });
      expect(scan.verdict, skill.folder).toBe('safe');
      for (const finding of scan.findings) seen.add(finding.patternId);
    }
    expect([...seen]).toEqual(['allowed_tools_field']);
  });
});
