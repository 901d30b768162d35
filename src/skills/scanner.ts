/**
 * Static security scanner for skills (SPEC §6, reference/hermes-spec.md §5).
 *
 * A learned or imported skill is a prompt that will be obeyed later, so every write the
 * model makes and every import is scanned. The scanner looks for exfiltration, prompt
 * injection, obfuscation, persistence, supply-chain, network, destructive, execution,
 * credential, traversal, privilege and mining patterns, for invisible Unicode characters,
 * and for structural problems (too many or too large files, binaries, escaping links).
 * The verdict (dangerous / caution / safe) and the source's trust level decide, through the
 * install policy, whether a skill is allowed, blocked or needs the user's confirmation.
 *
 * The regular expressions are Knack's own, written from the behaviour described in the
 * spec. Matching is case-insensitive and line-based: one finding per pattern per line.
 * For speed (100,000 characters in ≤ 15 ms) each pattern runs once over the whole text
 * (compiled so it cannot cross a line break), patterns whose literal hint is absent from
 * the text are skipped, and after a hit the scan jumps to the next line.
 */
import {
  FINDING_MATCH_MAX_CHARS,
  MAX_FILE_COUNT,
  MAX_SINGLE_FILE_KB,
  MAX_TOTAL_SIZE_KB,
  SCANNER_VERSION,
  SCAN_IGNORE_FILES,
  TRUSTED_REPOS,
} from './constants';

export type Severity = 'critical' | 'high' | 'medium' | 'low';
export type ThreatCategory =
  | 'exfiltration'
  | 'injection'
  | 'obfuscation'
  | 'persistence'
  | 'supply_chain'
  | 'network'
  | 'destructive'
  | 'execution'
  | 'credential_exposure'
  | 'traversal'
  | 'privilege_escalation'
  | 'mining'
  | 'structural';
export type Verdict = 'safe' | 'caution' | 'dangerous';
export type TrustLevel = 'builtin' | 'trusted' | 'community' | 'agent-created';
export type InstallDecision = 'allow' | 'block' | 'ask';

export interface Finding {
  patternId: string;
  severity: Severity;
  category: ThreatCategory;
  /** Path inside the skill, e.g. `SKILL.md` or `scripts/run.sh`. */
  file: string;
  /** 1-based line; 0 for findings about a whole file or the whole skill. */
  line: number;
  /** The matched text, cut to 120 characters. */
  match: string;
  description: string;
}

export interface ThreatPattern {
  id: string;
  category: ThreatCategory;
  severity: Severity;
  description: string;
  /** Lowercase literals; the pattern can only match when the text contains one of them. */
  hints: readonly string[];
  /** Case-insensitive, global, multiline; compiled so that no match spans a line break. */
  regex: RegExp;
}

// =============================================================================================
// Patterns

/**
 * Rewrite a regex source so it stays within one line: `\s` outside a class becomes "blank
 * other than a line break", and every negated class also excludes `\n`. Without this, a
 * `[^"]*` could run across the whole file and turn one scan into quadratic work.
 */
export function confineToLine(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      out += !inClass && next === 's' ? '[^\\S\\n]' : c + next;
      i++;
      continue;
    }
    if (!inClass && c === '[') {
      inClass = true;
      if (source[i + 1] === '^') {
        out += '[^\\n';
        i++;
      } else out += c;
      continue;
    }
    if (inClass && c === ']') inClass = false;
    out += c;
  }
  return out;
}

type PatternSpec = [id: string, category: ThreatCategory, severity: Severity, hints: string[], regex: RegExp, description: string];

/** Secret-looking variable names, used by several exfiltration patterns. */
const SECRET_NAME = /\w*(?:key|token|secret|passw(?:or)?d|credential|api)\w*/.source;
const QUOTED_SECRET_NAME = /['"][^'"]*(?:key|token|secret|passw(?:or)?d|credential)[^'"]*['"]/.source;
/** Bounded run of filler words between key words ("ignore *all of your* previous …"). */
const W = /(?:\w+\s+){0,6}?/.source;

const PATTERN_SPECS: PatternSpec[] = [
  // ---- exfiltration: sending secrets or private files somewhere
  ['env_exfil_curl', 'exfiltration', 'critical', ['curl'], new RegExp(`\\bcurl\\b.*\\$\\{?${SECRET_NAME}`), 'curl request that interpolates a secret-named environment variable'],
  ['env_exfil_wget', 'exfiltration', 'critical', ['wget'], new RegExp(`\\bwget\\b.*\\$\\{?${SECRET_NAME}`), 'wget request that interpolates a secret-named environment variable'],
  ['env_exfil_fetch', 'exfiltration', 'critical', ['fetch'], new RegExp(`\\bfetch\\s*\\(.*(?:\\$\\{|process\\.env\\b).*(?:key|token|secret|passw|credential|api)`), 'fetch() call that sends a secret-named variable'],
  ['env_exfil_httpx', 'exfiltration', 'critical', ['httpx'], new RegExp(`\\bhttpx\\.\\w+\\s*\\(.*(?:environ|getenv|\\$\\{).*(?:key|token|secret|passw|credential|api)`), 'httpx call that sends a secret-named variable'],
  ['env_exfil_requests', 'exfiltration', 'critical', ['requests'], new RegExp(`\\brequests\\.\\w+\\s*\\(.*(?:environ|getenv|\\$\\{).*(?:key|token|secret|passw|credential|api)`), 'requests call that sends a secret-named variable'],
  ['ssh_dir_access', 'exfiltration', 'high', ['.ssh'], /(?:~|\$\{?HOME\}?|\/home\/\w+|\/root)\/\.ssh\b|\.ssh\/(?:id_\w+|known_hosts)/, 'reads the SSH key folder'],
  ['aws_dir_access', 'exfiltration', 'high', ['.aws'], /(?:~|\$\{?HOME\}?|\/home\/\w+|\/root)\/\.aws\b|\.aws\/credentials/, 'reads AWS credentials'],
  ['gpg_dir_access', 'exfiltration', 'high', ['.gnupg'], /(?:~|\$\{?HOME\}?|\/home\/\w+|\/root)\/\.gnupg\b/, 'reads the GnuPG keyring'],
  ['kube_dir_access', 'exfiltration', 'high', ['.kube'], /(?:~|\$\{?HOME\}?|\/home\/\w+|\/root)\/\.kube\b|\.kube\/config\b/, 'reads Kubernetes credentials'],
  ['docker_dir_access', 'exfiltration', 'high', ['.docker'], /(?:~|\$\{?HOME\}?|\/home\/\w+|\/root)\/\.docker\b|\.docker\/config\.json/, 'reads Docker registry credentials'],
  ['hermes_env_access', 'exfiltration', 'critical', ['.hermes'], /\.hermes\/\.env\b/, "reads the agent's own secrets file"],
  ['read_secrets_file', 'exfiltration', 'critical', ['.env', 'credentials', '.netrc', '.pgpass', '.npmrc', '.pypirc'], /\b(?:cat|less|more|head|tail|bat|type)\s+(?![<>])[^\n|;&<>]*?(?:\.env\b|\bcredentials\b|\.netrc\b|\.pgpass\b|\.npmrc\b|\.pypirc\b)/, 'prints a file that usually holds secrets'],
  ['dump_all_env', 'exfiltration', 'high', ['printenv', 'env'], /\bprintenv\s*(?:$|[|>;&])|(?:^|[;&|]\s*|\$\(\s*)env\s*(?:$|[|>])/, 'dumps every environment variable'],
  ['python_os_environ', 'exfiltration', 'high', ['environ'], /\bos\.environ\b(?!\s*(?:\.get\s*\(|\[|\.setdefault|\.copy\(\)\s*$))/, 'reads the whole Python environment'],
  ['python_environ_get_secret', 'exfiltration', 'critical', ['environ'], new RegExp(`\\bos\\.environ(?:\\.get\\s*\\(|\\s*\\[)\\s*${QUOTED_SECRET_NAME}`), 'reads a secret-named environment variable in Python'],
  ['python_getenv_secret', 'exfiltration', 'critical', ['getenv'], new RegExp(`\\bos\\.getenv\\s*\\(\\s*${QUOTED_SECRET_NAME}`), 'reads a secret-named environment variable with os.getenv'],
  ['node_process_env', 'exfiltration', 'high', ['process.env'], /\bprocess\.env(?:\.\w*|\[\s*['"][^'"]*)(?:key|token|secret|passw|credential)/, 'reads a secret-named environment variable in Node'],
  ['ruby_env_secret', 'exfiltration', 'critical', ['env'], new RegExp(`\\bENV\\s*\\[\\s*${QUOTED_SECRET_NAME}`), 'reads a secret-named environment variable in Ruby'],
  ['dns_exfil', 'exfiltration', 'critical', ['dig', 'nslookup', 'host'], /\b(?:dig|nslookup|host)\s+[^\n]*\$[({\w]/, 'DNS lookup of a name built from a variable (DNS exfiltration)'],
  ['tmp_staging', 'exfiltration', 'high', ['/tmp'], /\b(?:cp|cat|tar|zip|mv)\b[^\n]*(?:\.env\b|\.ssh\b|id_rsa|credentials|\.aws\b|\.netrc)[^\n]*\/tmp\//, 'stages private files in /tmp'],
  ['md_image_exfil', 'exfiltration', 'high', ['${'], /!\[[^\]]*\]\(\s*https?:\/\/[^)\s]*\$\{/, 'markdown image whose URL carries interpolated data'],
  ['md_link_exfil', 'exfiltration', 'high', ['${'], /(?<!!)\[[^\]]*\]\(\s*https?:\/\/[^)\s]*\$\{/, 'markdown link whose URL carries interpolated data'],
  ['context_exfil', 'exfiltration', 'high', ['http'], new RegExp(`\\b(?:send|post|upload|transmit|forward|exfiltrate|leak)\\s+${W}(?:the\\s+)?(?:conversation|chat\\s+history|context|system\\s+prompt|session|memory|memories|user\\s+data)\\b.*https?://`), 'sends the conversation or context to a URL'],
  ['send_to_url', 'exfiltration', 'medium', ['http'], new RegExp(`\\b(?:send|post|upload|submit|forward|report)\\s+${W}to\\s+https?://`), 'tells the agent to send data to a URL'],
  ['pipe_to_netcat', 'exfiltration', 'critical', ['nc', 'netcat'], /\|\s*(?:nc|ncat|netcat)\s+[\w.-]+\s+\d{2,5}\b/, 'pipes data into a raw network connection'],
  ['curl_upload_secret', 'exfiltration', 'critical', ['curl'], /\bcurl\b[^\n]*(?:-d|--data(?:-binary|-raw)?|-F|--form|-T|--upload-file)\s*['"]?[^\n]*@?[^\n]*(?:\.env\b|\.ssh\/|id_rsa|\.aws\/|credentials|\.netrc)/, 'uploads a private file with curl'],

  // ---- injection: text that tries to take over the agent
  ['prompt_injection_ignore', 'injection', 'critical', ['ignore'], new RegExp(`\\bignore\\s+${W}(?:previous|all|above|prior|earlier|preceding|any)\\s+${W}(?:instructions|prompts?|rules|directions|guidelines|context)\\b`), 'asks the agent to ignore its instructions'],
  ['role_hijack', 'injection', 'high', ['you'], /\byou(?:\s+are|'re)\s+(?:\w+\s+){0,3}?now\s+(?:a|an|the|my|acting|operating|in|called|named|free|unrestricted|no\s+longer|dan)\b/, 'tries to give the agent a new identity'],
  ['deception_hide', 'injection', 'critical', ['user'], new RegExp(`\\b(?:do\\s+not|don'?t|never)\\s+${W}(?:tell|inform|mention|reveal|show|notify|alert|let)\\s+${W}(?:the\\s+)?user\\b`), 'tells the agent to hide something from the user'],
  ['sys_prompt_override', 'injection', 'critical', ['system', 'developer'], new RegExp(`\\b(?:override|replace|overwrite|ignore|bypass|disable|forget|discard)\\s+${W}(?:system|developer)\\s+(?:prompt|message|instructions?)\\b`), 'tries to override the system prompt'],
  ['role_pretend', 'injection', 'high', ['pretend', 'act', 'roleplay', 'imagine'], /\b(?:pretend|act\s+as\s+if|roleplay\s+as|imagine)\s+(?:\w+\s+){0,4}?(?:are|were|have|had|to\s+be)\s+(?:\w+\s+){0,3}?(?:no|without|unrestricted|unfiltered|evil|jailbroken|uncensored)\b/, 'asks the agent to pretend it has no rules'],
  ['disregard_rules', 'injection', 'critical', ['disregard'], new RegExp(`\\bdisregard\\s+${W}(?:rules|instructions|guidelines|policies|restrictions|safety|constraints|programming)\\b`), 'asks the agent to disregard its rules'],
  ['leak_system_prompt', 'injection', 'high', ['prompt', 'instructions', 'developer'], new RegExp(`\\b(?:reveal|print|output|show|repeat|leak|dump|display|disclose)\\s+${W}(?:system\\s+prompt|initial\\s+instructions|hidden\\s+instructions|developer\\s+message)\\b`), 'asks the agent to reveal its system prompt'],
  ['conditional_deception', 'injection', 'high', ['if'], /\bif\s+(?:\w+\s+){0,4}?(?:user|human|they|anyone)\s+(?:\w+\s+){0,3}?(?:asks?|questions?|checks?|wonders?)\b.*\b(?:lie|deny|pretend|say\s+(?:nothing|no)|make\s+up)\b/, 'tells the agent to deceive when asked'],
  ['bypass_restrictions', 'injection', 'high', ['bypass', 'circumvent', 'evade', 'around'], new RegExp(`\\b(?:bypass|circumvent|evade|get\\s+around|work\\s+around)\\s+${W}(?:safety|security|content|restrictions?|filters?|guardrails?|moderation|polic(?:y|ies)|limitations?)\\b`), 'asks the agent to get around its safeguards'],
  ['translate_execute', 'injection', 'high', ['translate', 'decode'], /\b(?:translate|decode)\b.*\b(?:then|and)\s+(?:execute|run|eval(?:uate)?|follow)\b/, 'hides an instruction behind translation or decoding'],
  ['html_comment_injection', 'injection', 'high', ['<!--'], /<!--.*\b(?:ignore|disregard|override|system\s+prompt|you\s+(?:must|are|should)|assistant|instructions?)\b/, 'instructions hidden in an HTML comment'],
  ['hidden_div', 'injection', 'high', ['style'], /<(?:div|span|p|section)\b[^>]*style\s*=\s*['"][^'"]*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)/, 'content hidden from the reader with CSS'],
  ['jailbreak_dan', 'injection', 'critical', ['dan', 'anything'], /\b(?:DAN\s+mode|do\s+anything\s+now|you\s+are\s+DAN)\b/, 'DAN jailbreak'],
  ['jailbreak_dev_mode', 'injection', 'high', ['mode'], /\b(?:(?:you\s+are|you're)\s+(?:now\s+)?in|enter(?:ing)?|activate|switch\s+to)\s+(?:developer|dev|god|jailbreak|unrestricted|sudo)\s+mode\b/, '"developer mode" jailbreak'],
  ['hypothetical_bypass', 'injection', 'high', ['hypothetical', 'fictional'], /\b(?:hypothetical(?:ly)?|fictional|in\s+a\s+story)\b.*\b(?:no\s+rules|no\s+restrictions|no\s+limits|ignore|bypass|without\s+(?:any\s+)?(?:limits|restrictions|filters|rules))\b/, 'uses a hypothetical to lift restrictions'],
  ['educational_pretext', 'injection', 'medium', ['purpose'], /\bfor\s+(?:purely\s+)?(?:educational|research|academic|testing)\s+purposes?\s+only\b/, '"for educational purposes only" pretext'],
  ['remove_filters', 'injection', 'high', ['filter', 'safety', 'polic', 'censor', 'guardrail'], /\b(?:remove|disable|turn\s+off|drop|strip|lift)\s+(?:\w+\s+){0,3}?(?:filters|safety\s+(?:filters|checks|guidelines|measures)|content\s+polic(?:y|ies)|censorship|guardrails)\b/, 'asks the agent to drop its safety filters'],
  ['fake_update', 'injection', 'high', ['update', 'instruction', 'directive'], /\b(?:new|updated|urgent|important|official)\s+(?:system\s+)?(?:update|instructions?|directive|message)\s*(?:from|by)\s+(?:anthropic|openai|the\s+developers?|your\s+(?:creators?|developers?)|the\s+system\s+admin(?:istrator)?|nous\s*research|hermes|knack)\b/, 'pretends to be an update from the vendor'],
  ['fake_policy', 'injection', 'medium', ['polic'], /\b(?:new|updated|revised|latest|official|current)\s+(?:\w+\s+){0,3}?polic(?:y|ies)\b.*\b(?:allows?|permits?|permitted|authori[sz]e[sd]?|no\s+longer\s+(?:applies|apply|restricts?))\b/, 'claims a policy change that permits something'],
  ['fake_system_tag', 'injection', 'high', ['system', 'im_start'], /<\s*\/?\s*(?:system|im_start|\|im_start\|)\s*>|\[\s*system\s*\]\s*:/, 'fake system or chat-template tag'],

  // ---- obfuscation: hiding what a command does
  ['base64_decode_pipe', 'obfuscation', 'high', ['base64'], /\bbase64\s+(?:-d|-D|--decode)\b.*\|/, 'decodes base64 and pipes it on'],
  ['hex_encoded_string', 'obfuscation', 'medium', ['\\x'], /(?:\\x[0-9a-f]{2}){6,}/, 'long hex-escaped string'],
  ['eval_string', 'obfuscation', 'high', ['eval'], /\beval\s*\(\s*['"`]/, 'eval() of a literal string'],
  ['exec_string', 'obfuscation', 'high', ['exec'], /\bexec\s*\(\s*['"]/, 'exec() of a literal string'],
  ['echo_pipe_exec', 'obfuscation', 'high', ['echo', 'printf'], /\b(?:echo|printf)\s+[^\n|]*\|\s*(?:(?:ba|z|da|k)?sh|python[0-9.]*|perl|ruby|node)\b/, 'echoes text into an interpreter'],
  ['compile_exec', 'obfuscation', 'high', ['compile'], /\bcompile\s*\(.*['"]exec['"]/, "compile(..., 'exec')"],
  ['getattr_builtins', 'obfuscation', 'high', ['__builtins__'], /\bgetattr\s*\(\s*__builtins__/, 'reaches into __builtins__'],
  ['import_os_dynamic', 'obfuscation', 'high', ['__import__'], /__import__\s*\(\s*['"](?:os|subprocess|sys|socket|shutil|pty)['"]/, 'dynamic import of a system module'],
  ['codecs_decode', 'obfuscation', 'medium', ['codecs'], /\bcodecs\.decode\s*\(/, 'codecs.decode (often rot13 or hex)'],
  ['js_fromcharcode', 'obfuscation', 'medium', ['fromcharcode'], /\bString\.fromCharCode\s*\(/, 'builds a string from character codes'],
  ['js_atob_btoa', 'obfuscation', 'medium', ['atob', 'btoa'], /\b(?:atob|btoa)\s*\(/, 'base64 in JavaScript'],
  ['string_reverse', 'obfuscation', 'low', ['::'], /\[\s*::\s*-1\s*\]/, 'reversed string'],
  ['chr_concat', 'obfuscation', 'high', ['chr'], /\bchr\s*\(\s*\d+\s*\)\s*\+\s*chr\s*\(\s*\d+\s*\)/, 'string assembled with chr() + chr()'],
  ['unicode_escape_chain', 'obfuscation', 'medium', ['\\u'], /(?:\\u[0-9a-f]{4}){4,}/, 'long chain of \\u escapes'],

  // ---- persistence: surviving beyond the task
  ['crontab_modify', 'persistence', 'medium', ['crontab'], /\bcrontab\b/, 'schedules a cron job'],
  ['shell_rc_modify', 'persistence', 'high', ['rc', 'profile'], /(?:>>?|\btee\b)[^\n]*(?:\.bashrc|\.zshrc|\.bash_profile|\.zprofile|\.profile|\.bash_login)\b/, 'writes to a shell start-up file'],
  ['ssh_authorized_keys', 'persistence', 'critical', ['authorized_keys'], /\bauthorized_keys\b/, 'touches SSH authorized_keys'],
  ['ssh_keygen', 'persistence', 'medium', ['ssh-keygen'], /\bssh-keygen\b/, 'generates SSH keys'],
  ['systemd_service', 'persistence', 'medium', ['systemctl', 'systemd'], /\bsystemctl\s+(?:--user\s+)?(?:enable|daemon-reload|link)\b|\/etc\/systemd\/system\/|\.config\/systemd\/user\//, 'installs a systemd service'],
  ['init_d_script', 'persistence', 'medium', ['init.d', 'update-rc.d'], /\/etc\/init\.d\/|\bupdate-rc\.d\b/, 'installs an init.d script'],
  ['launchd_agent', 'persistence', 'medium', ['launch'], /\blaunchctl\s+(?:load|bootstrap|submit|enable)\b|Library\/Launch(?:Agents|Daemons)/, 'installs a launchd agent'],
  ['sudoers_modify', 'persistence', 'critical', ['sudoers', 'visudo'], /\/etc\/sudoers|\bvisudo\b/, 'changes sudoers'],
  ['git_config_global', 'persistence', 'medium', ['git'], /\bgit\s+config\s+--global\b/, 'changes global git configuration'],
  ['agent_instruction_files', 'persistence', 'critical', ['agents.md', 'claude.md', '.cursorrules', '.clinerules'], /(?:>>?|\btee\b|\b(?:write|append|add|insert|modify|edit|update|overwrite)\b|\bcp\b|\bmv\b|\becho\b).*(?:\bAGENTS\.md|\bCLAUDE\.md|\.cursorrules|\.clinerules)\b/, "writes another agent's standing instructions"],
  ['agent_config_persist', 'persistence', 'critical', ['.hermes/config', 'soul.md', '.knack/'], /\.hermes\/config\.ya?ml|\bSOUL\.md\b|\.knack\/(?:config|settings)/, "changes the agent's own configuration or persona"],
  ['other_agent_config', 'persistence', 'high', ['.claude/', '.codex/'], /\.claude\/settings|\.codex\/config/, "changes another coding agent's configuration"],

  // ---- supply chain: running code fetched at run time
  ['curl_pipe_shell', 'supply_chain', 'critical', ['curl'], /\bcurl\b[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh)\b/, 'pipes a download into a shell'],
  ['wget_pipe_shell', 'supply_chain', 'critical', ['wget'], /\bwget\b[^\n|]*\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh)\b/, 'pipes a download into a shell'],
  ['curl_pipe_interpreter', 'supply_chain', 'critical', ['curl', 'wget'], /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node)\b/, 'pipes a download into an interpreter'],
  ['pep723_inline_deps', 'supply_chain', 'medium', ['///'], /^\s*#\s*\/\/\/\s*script\b/, 'script with inline (PEP 723) dependencies'],
  ['unpinned_pip_install', 'supply_chain', 'medium', ['pip'], /\bpip3?\s+install\s+(?![^\n]*(?:==|\s-r\s|--requirement|\s-e\s+\.))(?:-\S+\s+)*[a-z]/, 'pip install without pinned versions'],
  ['unpinned_npm_install', 'supply_chain', 'medium', ['npm'], /\bnpm\s+(?:install|i|add)\s+(?:-\S+\s+)*[a-z@](?![^\n]*@\d)/, 'npm install without pinned versions'],
  ['uv_run', 'supply_chain', 'medium', ['uv'], /\buv\s+run\b|\buvx\s+[\w@-]/, 'uv run / uvx fetches packages at run time'],
  ['remote_fetch', 'supply_chain', 'medium', ['http'], /\b(?:curl|wget|invoke-webrequest|iwr)\b.*https:\/\//, 'downloads from a remote URL'],
  ['git_clone', 'supply_chain', 'medium', ['clone'], /\bgit\s+clone\b/, 'clones a remote repository'],
  ['docker_pull', 'supply_chain', 'medium', ['docker'], /\bdocker\s+pull\b/, 'pulls a container image'],

  // ---- network: listeners, shells and tunnels
  ['reverse_shell', 'network', 'critical', ['nc', 'netcat', 'socat'], /\b(?:nc|ncat|netcat)\b[^\n]*\s-[a-z]*[le][a-z]*\b|\bsocat\b[^\n]*\b(?:exec|pty|tcp[46]?(?:-listen)?):/, 'netcat/socat listener or reverse shell'],
  ['bash_dev_tcp', 'network', 'critical', ['/dev/tcp', '/dev/udp'], /\/dev\/(?:tcp|udp)\//, 'bash /dev/tcp connection (reverse shell)'],
  ['python_socket_oneliner', 'network', 'critical', ['socket'], /\bpython[0-9.]*\s+-c\s+['"][^\n]*\bsocket\b/, 'python one-liner opening a socket'],
  ['socket_connect', 'network', 'high', ['connect'], /\.connect\s*\(\s*\(/, 'raw socket connect((host, port))'],
  ['tunnel_service', 'network', 'high', ['ngrok', 'localtunnel', 'serveo', 'cloudflared', '--port'], /\b(?:ngrok|localtunnel|serveo\.net|cloudflared\s+tunnel)\b|\blt\s+--port\b/, 'exposes a local port through a tunnel'],
  ['hardcoded_ip_port', 'network', 'medium', [':'], /\b(?!127\.0\.0\.1\b|0\.0\.0\.0\b)(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}\b/, 'hard-coded IP address and port'],
  ['bind_all_interfaces', 'network', 'medium', ['0.0.0.0', 'inaddr_any'], /\b0\.0\.0\.0:\d+|\bINADDR_ANY\b/, 'listens on every network interface'],
  ['webhook_capture', 'network', 'high', ['webhook.site', 'requestbin', 'pipedream', 'hookbin', 'requestcatcher', 'beeceptor'], /\b(?:webhook\.site|requestbin|pipedream\.net|hookbin|requestcatcher|beeceptor)\b/, 'request-capture service'],
  ['paste_service', 'network', 'high', ['paste', 'hastebin', 'ghostbin', '0x0.st', 'termbin'], /\b(?:pastebin\.com|hastebin|ghostbin|paste\.ee|0x0\.st|termbin\.com)\b/, 'paste service (a common exfiltration drop)'],

  // ---- destructive
  ['destructive_root_rm', 'destructive', 'critical', ['rm'], /\brm\s+(?:-{1,2}[\w-]+\s+)*(?:\/|\/\*)(?=\s|$|;|&|\|)/, 'rm -rf of the filesystem root'],
  ['destructive_home_rm', 'destructive', 'critical', ['rm'], /\brm\s+(?:-{1,2}[\w-]+\s+)+(?:~|\$HOME|\$\{HOME\})\/?\*?(?=\s|$|;|&|\|)/, 'rm -rf of the home folder'],
  ['chmod_777', 'destructive', 'medium', ['777'], /\bchmod\s+(?:-R\s+)?0?777\b/, 'makes files writable by everyone'],
  ['write_etc', 'destructive', 'high', ['/etc/'], />\s*\/etc\//, 'overwrites a file under /etc'],
  ['mkfs_format', 'destructive', 'critical', ['mkfs'], /\bmkfs(?:\.\w+)?\b/, 'formats a filesystem'],
  ['dd_to_device', 'destructive', 'critical', ['of=/dev/'], /\bdd\b[^\n]*\bof=\/dev\/(?:sd|nvme|hd|disk|mmcblk|xvd|vd)/, 'writes raw data over a disk'],
  ['python_rmtree_root', 'destructive', 'high', ['rmtree'], /\bshutil\.rmtree\s*\(\s*(?:['"](?:\/|~|[a-z]:\\)|os\.path\.expanduser\s*\(\s*['"]~['"]\s*\))/, 'shutil.rmtree of a root or home folder'],
  ['truncate_root', 'destructive', 'high', ['truncate'], /\btruncate\s+-s\s*0\s+\//, 'truncates system files'],

  // ---- execution
  ['subprocess_call', 'execution', 'medium', ['subprocess'], /\bsubprocess\.(?:run|call|Popen|check_output|check_call|getoutput)\s*\(/, 'runs a subprocess'],
  ['os_system', 'execution', 'high', ['os.system'], /\bos\.system\s*\(/, 'os.system()'],
  ['os_popen', 'execution', 'high', ['os.popen'], /\bos\.popen\s*\(/, 'os.popen()'],
  ['node_child_process', 'execution', 'high', ['child_process'], /\bchild_process\b.*\b(?:exec|execSync|spawn|spawnSync|fork|execFile)\b/, 'Node child_process execution'],
  ['java_runtime_exec', 'execution', 'high', ['getruntime'], /\bRuntime\.getRuntime\s*\(\s*\)\s*\.exec\s*\(/, 'Java Runtime.exec()'],
  ['backtick_subshell', 'execution', 'medium', ['$('], /`[^`\n]*\$\([^`\n]*`/, 'backtick command containing $( )'],

  // ---- credentials written into the skill
  ['hardcoded_secret', 'credential_exposure', 'critical', ['key', 'token', 'secret', 'passw'], /\b(?:api[_-]?key|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|token|passw(?:or)?d)\b['"]?\s*[:=]\s*['"][A-Za-z0-9+/_.=-]{20,}['"]/, 'secret value written into the skill'],
  ['private_key_block', 'credential_exposure', 'critical', ['private'], /-----BEGIN\s+(?:[A-Z]+\s+)?PRIVATE\s+KEY(?:\s+BLOCK)?-----/, 'private key'],
  ['github_token', 'credential_exposure', 'critical', ['gh', 'github_pat_'], /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{22,}/, 'GitHub token'],
  ['openai_key', 'credential_exposure', 'critical', ['sk-'], /\bsk-(?!ant-)(?=[A-Za-z0-9_-]*\d)(?:proj-)?[A-Za-z0-9_-]{20,}/, 'OpenAI-style API key'],
  ['anthropic_key', 'credential_exposure', 'critical', ['sk-ant-'], /\bsk-ant-[A-Za-z0-9_-]{90,}/, 'Anthropic API key'],
  ['aws_access_key', 'credential_exposure', 'critical', ['akia'], /\bAKIA[0-9A-Z]{16}\b/, 'AWS access key id'],

  // ---- traversal
  ['path_traversal_deep', 'traversal', 'high', ['../'], /\.\.\/\.\.\/\.\./, 'deep relative path (../../..)'],
  ['path_traversal', 'traversal', 'medium', ['../'], /\.\.\/\.\./, 'relative path leaving the folder (../..)'],
  ['system_passwd_access', 'traversal', 'critical', ['/etc/passwd', '/etc/shadow'], /\/etc\/(?:passwd|shadow)\b/, 'reads the system password files'],
  ['proc_self_access', 'traversal', 'high', ['/proc/self'], /\/proc\/self\//, 'reads process internals'],
  ['dev_shm_access', 'traversal', 'medium', ['/dev/shm'], /\/dev\/shm\//, 'uses shared memory as a drop'],

  // ---- privilege escalation
  ['allowed_tools_field', 'privilege_escalation', 'low', ['allowed-tools'], /^\s*allowed-tools\s*:/, 'pre-approves tools (informational)'],
  ['sudo_usage', 'privilege_escalation', 'high', ['sudo'], /\bsudo\b/, 'runs commands as root'],
  ['setuid_setgid', 'privilege_escalation', 'critical', ['set'], /\b(?:os\.)?set(?:e|re|res)?[ug]id\s*\(/, 'changes the process user or group'],
  ['nopasswd_sudo', 'privilege_escalation', 'critical', ['nopasswd'], /\bNOPASSWD\b/, 'password-less sudo rule'],
  ['chmod_setuid', 'privilege_escalation', 'critical', ['chmod'], /\bchmod\s+(?:-R\s+)?(?:[ugoa]*\+[rwx]*s|[246][0-7]{3})\b/, 'sets the setuid/setgid bit'],

  // ---- mining
  ['crypto_miner', 'mining', 'critical', ['xmrig', 'stratum', 'coinhive', 'cryptonight', 'minerd', 'cpuminer', 'monero'], /\b(?:xmrig|stratum\+tcp|coinhive|cryptonight|minerd|cpuminer|monero)\b/, 'cryptocurrency miner'],
  ['mining_indicators', 'mining', 'medium', ['hashrate', 'nonce'], /\bhashrate\b|\bnonce\b.*\bdifficulty\b/, 'mining vocabulary'],
];

export const THREAT_PATTERNS: readonly ThreatPattern[] = PATTERN_SPECS.map(([id, category, severity, hints, regex, description]) => ({
  id,
  category,
  severity,
  hints,
  description,
  regex: new RegExp(confineToLine(regex.source), 'gim'),
}));

/**
 * Which hints occur in a text, found in one pass instead of one `includes` per hint (which
 * costs ~7 ms on 100,000 characters). Hints are tried longest first at every position where
 * one matches; a hint that only occurs inside a longer one is credited through `containedHints`.
 */
const HINTS_LONGEST_FIRST = [...new Set(THREAT_PATTERNS.flatMap((p) => p.hints))].sort((a, b) => b.length - a.length);
const HINT_RE = new RegExp(HINTS_LONGEST_FIRST.map((h) => h.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
const containedHints = new Map(HINTS_LONGEST_FIRST.map((h) => [h, HINTS_LONGEST_FIRST.filter((other) => h.includes(other))]));

function hintsPresent(lowerText: string): Set<string> {
  const found = new Set<string>();
  HINT_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = HINT_RE.exec(lowerText)) !== null) {
    if (!found.has(m[0])) for (const h of containedHints.get(m[0])!) found.add(h);
    HINT_RE.lastIndex = m.index + 1;
  }
  return found;
}

// =============================================================================================
// Invisible characters

const INVISIBLE_CHAR_NAMES: ReadonlyMap<number, string> = new Map([
  [0x200b, 'zero width space'],
  [0x200c, 'zero width non-joiner'],
  [0x200d, 'zero width joiner'],
  [0x2060, 'word joiner'],
  [0x2062, 'invisible times'],
  [0x2063, 'invisible separator'],
  [0x2064, 'invisible plus'],
  [0xfeff, 'zero width no-break space (BOM)'],
  [0x202a, 'left-to-right embedding'],
  [0x202b, 'right-to-left embedding'],
  [0x202c, 'pop directional formatting'],
  [0x202d, 'left-to-right override'],
  [0x202e, 'right-to-left override'],
  [0x2066, 'left-to-right isolate'],
  [0x2067, 'right-to-left isolate'],
  [0x2068, 'first strong isolate'],
  [0x2069, 'pop directional isolate'],
]);
const INVISIBLE_RE = /[\u200b\u200c\u200d\u2060\u2062\u2063\u2064\ufeff\u202a-\u202e\u2066-\u2069]/g;

/** A readable name for a character, or `U+XXXX` when it has none here. */
export function unicodeCharName(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return INVISIBLE_CHAR_NAMES.get(code) ?? `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

// =============================================================================================
// Scanning text

/** Files the pattern scan reads (by extension), as in Hermes plus `.jsonl` for Knack evals. */
const SCANNABLE_EXTENSIONS = new Set([
  '.md', '.txt', '.py', '.sh', '.bash', '.js', '.ts', '.rb', '.yaml', '.yml', '.json', '.jsonl', '.toml',
  '.cfg', '.ini', '.conf', '.html', '.css', '.xml', '.tex', '.r', '.jl', '.pl', '.php',
]);

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export function isScannableFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base === 'SKILL.md' || SCANNABLE_EXTENSIONS.has(extensionOf(path));
}

function capMatch(text: string): string {
  const t = text.trim();
  return t.length > FINDING_MATCH_MAX_CHARS ? `${t.slice(0, FINDING_MATCH_MAX_CHARS - 3)}...` : t;
}

/** Start offset of every line. */
function lineStarts(text: string): Int32Array {
  let count = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  const starts = new Int32Array(count);
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts[n++] = i + 1;
  return starts;
}

/** Index of the line containing `offset` (binary search). */
function lineIndexAt(starts: Int32Array, offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Scan one text file's content (Hermes `scan_file`). Returns findings in line order; at most
 * one per pattern per line and one invisible-character finding per line. A BOM at the very
 * start is an encoding marker, not hidden text, and is not reported.
 */
export function scanText(content: string, file = 'SKILL.md'): Finding[] {
  const findings: Finding[] = [];
  const present = hintsPresent(content.toLowerCase());
  let starts: Int32Array | null = null;
  const lineText = (index: number) => {
    const s = starts!;
    const end = index + 1 < s.length ? s[index + 1] - 1 : content.length;
    return content.slice(s[index], end);
  };

  for (const pattern of THREAT_PATTERNS) {
    if (pattern.hints.length > 0 && !pattern.hints.some((hint) => present.has(hint))) continue;
    const re = pattern.regex;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(content)) !== null) {
      starts ??= lineStarts(content);
      const index = lineIndexAt(starts, m.index);
      findings.push({
        patternId: pattern.id,
        severity: pattern.severity,
        category: pattern.category,
        file,
        line: index + 1,
        match: capMatch(m[0] || lineText(index)),
        description: pattern.description,
      });
      // One finding per pattern per line: continue from the next line.
      if (index + 1 >= starts.length) break;
      re.lastIndex = starts[index + 1];
    }
  }

  INVISIBLE_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  let lastLine = -1;
  while ((m = INVISIBLE_RE.exec(content)) !== null) {
    if (m.index === 0 && m[0] === '\ufeff') continue;
    starts ??= lineStarts(content);
    const index = lineIndexAt(starts, m.index);
    if (index === lastLine) continue;
    lastLine = index;
    const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    findings.push({
      patternId: 'invisible_unicode',
      severity: 'high',
      category: 'injection',
      file,
      line: index + 1,
      match: `U+${code} (${unicodeCharName(m[0])})`,
      description: 'invisible character that can hide text from the reader',
    });
  }

  findings.sort((a, b) => a.line - b.line);
  return findings;
}

/** Substrings that make `skill_view` attach a warning to the content it serves. */
export const INJECTION_PHRASES: readonly string[] = [
  'ignore previous instructions',
  'ignore all previous',
  'you are now',
  'disregard your',
  'forget your instructions',
  'new instructions:',
  'system prompt:',
  '<system>',
  ']]>',
];

/** The injection phrases present in `text` (case-insensitive), in list order. */
export function findInjectionPhrases(text: string): string[] {
  const lower = text.toLowerCase();
  return INJECTION_PHRASES.filter((phrase) => lower.includes(phrase));
}

// =============================================================================================
// Ignore files (.skillignore / .clawhubignore)

interface IgnoreRule {
  regex: RegExp;
  dirOnly: boolean;
  anchored: boolean;
}

/** fnmatch-style glob to regex: `*` and `?` match any character (slashes too), `[...]` sets. */
function globToRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close === -1) out += '\\[';
      else {
        let set = glob.slice(i + 1, close);
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        out += `[${set.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

export function parseIgnoreRules(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split('\n')) {
    let line = rawLine.trim();
    if (!line || line.startsWith('#')) continue;
    const dirOnly = line.endsWith('/');
    if (dirOnly) line = line.replace(/\/+$/, '');
    // As in gitignore, a slash at the start or in the middle ties the pattern to the skill root.
    const anchored = line.includes('/');
    line = line.replace(/^\/+/, '');
    if (!line) continue;
    rules.push({ regex: globToRegex(line), dirOnly, anchored });
  }
  return rules;
}

/** True when `path` (relative to the skill) is excluded by the rules. */
export function isIgnored(path: string, rules: readonly IgnoreRule[]): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  for (const rule of rules) {
    if (rule.dirOnly) {
      // A directory rule matches any parent folder (or, when anchored, a leading prefix).
      const dirs = parts.slice(0, -1);
      for (let i = 0; i < dirs.length; i++) {
        if (rule.anchored ? rule.regex.test(dirs.slice(0, i + 1).join('/')) : rule.regex.test(dirs[i])) return true;
      }
      continue;
    }
    if (rule.anchored) {
      if (rule.regex.test(path)) return true;
      for (let i = 1; i < parts.length; i++) if (rule.regex.test(parts.slice(0, i).join('/'))) return true;
      continue;
    }
    if (rule.regex.test(path) || rule.regex.test(base) || parts.some((part) => rule.regex.test(part))) return true;
  }
  return false;
}

// =============================================================================================
// Whole-skill scan

export interface SkillFileInput {
  /** Path relative to the skill folder, `/`-separated. */
  path: string;
  /** Text or bytes. Bytes that are not UTF-8 are skipped by the pattern scan. */
  content: string | Uint8Array;
  /** For importers that can see links (zip entries): the link target, relative to the file. */
  symlinkTarget?: string;
  /** For importers that can see modes: the executable bit. */
  executable?: boolean;
}

export interface ScanResult {
  skillName: string;
  source: string;
  trustLevel: TrustLevel;
  verdict: Verdict;
  findings: Finding[];
  /** Files the pattern scan read. */
  scannedFiles: string[];
  scannerVersion: string;
  summary: string;
}

const BINARY_EXTENSIONS = new Set(['.exe', '.dll', '.so', '.dylib', '.bin', '.dat', '.com', '.msi', '.dmg', '.app', '.deb', '.rpm']);
const SCRIPT_EXTENSIONS = new Set(['.sh', '.bash', '.py', '.rb', '.pl']);

function byteSize(content: string | Uint8Array): number {
  if (typeof content !== 'string') return content.byteLength;
  let bytes = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 2 : 3;
  }
  return bytes;
}

/** Lexically resolve `target` relative to the folder of `from`; null when it leaves the skill. */
function resolveInside(from: string, target: string): string | null {
  if (target.startsWith('/') || target.includes('\\') || /^[a-z]:/i.test(target)) return null;
  const stack = from.split('/').slice(0, -1);
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (stack.length === 0) return null;
      stack.pop();
    } else stack.push(part);
  }
  return stack.join('/');
}

function structuralFinding(patternId: string, severity: Severity, file: string, match: string, description: string, category: ThreatCategory = 'structural'): Finding {
  return { patternId, severity, category, file, line: 0, match: capMatch(match), description };
}

/** Structural checks (Hermes `check_structure`), adapted to files that come from a zip or the store. */
export function checkStructure(files: readonly SkillFileInput[]): Finding[] {
  const findings: Finding[] = [];
  const paths = new Set(files.map((f) => f.path));
  let total = 0;
  for (const file of files) {
    const size = byteSize(file.content);
    total += size;
    const ext = extensionOf(file.path);
    if (file.path.startsWith('/') || file.path.split(/[\\/]/).includes('..') || /^[a-z]:/i.test(file.path)) {
      findings.push(structuralFinding('path_escape', 'critical', file.path, file.path, 'file path leaves the skill folder', 'traversal'));
    }
    if (file.symlinkTarget !== undefined) {
      const resolved = resolveInside(file.path, file.symlinkTarget);
      if (resolved === null) {
        findings.push(structuralFinding('symlink_escape', 'critical', file.path, `${file.path} -> ${file.symlinkTarget}`, 'link points outside the skill folder', 'traversal'));
      } else if (!paths.has(resolved) && ![...paths].some((p) => p.startsWith(`${resolved}/`))) {
        findings.push(structuralFinding('broken_symlink', 'medium', file.path, `${file.path} -> ${file.symlinkTarget}`, 'link points to nothing'));
      }
    }
    if (size > MAX_SINGLE_FILE_KB * 1024) {
      findings.push(structuralFinding('oversized_file', 'medium', file.path, `${Math.round(size / 1024)} KB`, `file larger than ${MAX_SINGLE_FILE_KB} KB`));
    }
    if (BINARY_EXTENSIONS.has(ext)) {
      findings.push(structuralFinding('binary_file', 'critical', file.path, file.path, 'executable binary inside a skill'));
    }
    if (file.executable && !SCRIPT_EXTENSIONS.has(ext)) {
      findings.push(structuralFinding('unexpected_executable', 'medium', file.path, file.path, 'executable bit on a file that is not a script'));
    }
  }
  if (files.length > MAX_FILE_COUNT) {
    findings.push(structuralFinding('too_many_files', 'medium', '', `${files.length} files`, `more than ${MAX_FILE_COUNT} files`));
  }
  if (total > MAX_TOTAL_SIZE_KB * 1024) {
    findings.push(structuralFinding('oversized_skill', 'high', '', `${Math.round(total / 1024)} KB`, `skill larger than ${MAX_TOTAL_SIZE_KB} KB in total`));
  }
  return findings;
}

/** critical → dangerous; else high → caution; else safe. */
export function determineVerdict(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'critical')) return 'dangerous';
  if (findings.some((f) => f.severity === 'high')) return 'caution';
  return 'safe';
}

const SKILLS_SH_PREFIXES = ['skills-sh/', 'skills.sh/', 'skils-sh/', 'skils.sh/'];

/** Trust level of a source string (hub id, repo path, `official`, `agent-created`). */
export function resolveTrustLevel(source: string): TrustLevel {
  let s = source.trim();
  for (const prefix of SKILLS_SH_PREFIXES) {
    if (s.toLowerCase().startsWith(prefix)) {
      s = s.slice(prefix.length);
      break;
    }
  }
  if (s === 'agent-created') return 'agent-created';
  if (s === 'official') return 'builtin';
  const lower = s.toLowerCase();
  for (const repo of TRUSTED_REPOS) {
    const r = repo.toLowerCase();
    if (lower === r || lower.startsWith(`${r}/`)) return 'trusted';
  }
  return 'community';
}

const decodeStrict = (bytes: Uint8Array): string | null => {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
};

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

/**
 * Scan a whole skill: ignore files, structure, then every scannable text file.
 * `source` decides the trust level (`agent-created` for model writes in Knack).
 */
export function scanSkill(input: { name: string; source: string; files: readonly SkillFileInput[] }): ScanResult {
  const rules: IgnoreRule[] = [];
  for (const file of input.files) {
    if (SCAN_IGNORE_FILES.includes(file.path) && typeof file.content === 'string') rules.push(...parseIgnoreRules(file.content));
    else if (SCAN_IGNORE_FILES.includes(file.path)) {
      const text = decodeStrict(file.content as Uint8Array);
      if (text !== null) rules.push(...parseIgnoreRules(text));
    }
  }
  const considered = input.files.filter(
    (file) => !SCAN_IGNORE_FILES.includes(file.path) && (file.path === 'SKILL.md' || !isIgnored(file.path, rules)),
  );
  const findings = checkStructure(considered);
  const scannedFiles: string[] = [];
  for (const file of considered) {
    if (!isScannableFile(file.path) || file.symlinkTarget !== undefined) continue;
    const text = typeof file.content === 'string' ? file.content : decodeStrict(file.content);
    if (text === null) continue;
    scannedFiles.push(file.path);
    findings.push(...scanText(text, file.path));
  }
  findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
  const verdict = determineVerdict(findings);
  const counts = (['critical', 'high', 'medium', 'low'] as const)
    .map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  return {
    skillName: input.name,
    source: input.source,
    trustLevel: resolveTrustLevel(input.source),
    verdict,
    findings,
    scannedFiles,
    scannerVersion: SCANNER_VERSION,
    summary: counts.length > 0 ? `${verdict}: ${counts.join(', ')}` : 'safe: no findings',
  };
}

// =============================================================================================
// Install policy

/** allow / block / ask per trust level, for safe / caution / dangerous verdicts. */
export const INSTALL_POLICY: Readonly<Record<TrustLevel, Readonly<Record<Verdict, InstallDecision>>>> = {
  builtin: { safe: 'allow', caution: 'allow', dangerous: 'allow' },
  trusted: { safe: 'allow', caution: 'allow', dangerous: 'block' },
  community: { safe: 'allow', caution: 'block', dangerous: 'block' },
  'agent-created': { safe: 'allow', caution: 'allow', dangerous: 'ask' },
};

export interface InstallVerdict {
  decision: InstallDecision;
  /** Hermes' tri-state: true = install, false = refuse, null = ask the user. */
  allowed: boolean | null;
  reason: string;
}

/**
 * Decide whether a scanned skill may be installed. `force` (the user insisting) overrides
 * every block except a dangerous verdict from a community or trusted source. An unknown trust
 * level is treated as community and an unknown verdict as dangerous.
 */
export function shouldAllowInstall(result: Pick<ScanResult, 'trustLevel' | 'verdict' | 'findings'>, force = false): InstallVerdict {
  const trust: TrustLevel = result.trustLevel in INSTALL_POLICY ? result.trustLevel : 'community';
  const verdict: Verdict = result.verdict in INSTALL_POLICY.community ? result.verdict : 'dangerous';
  const decision = INSTALL_POLICY[trust][verdict];
  const context = `${trust} source, ${verdict} verdict`;
  if (decision === 'allow') return { decision, allowed: true, reason: `Allowed (${context})` };
  if (force) {
    if (verdict === 'dangerous' && (trust === 'community' || trust === 'trusted')) {
      return {
        decision: 'block',
        allowed: false,
        reason: `Blocked (${context}, ${result.findings.length} findings): force install does not override a dangerous verdict`,
      };
    }
    return { decision: 'allow', allowed: true, reason: `Force-installed despite the ${verdict} verdict (${trust} source)` };
  }
  if (decision === 'ask') {
    return { decision, allowed: null, reason: `Requires confirmation (${context}, ${result.findings.length} findings)` };
  }
  return { decision, allowed: false, reason: `Blocked (${context}, ${result.findings.length} findings). Use force install to override.` };
}

/** Plain-text report for the user and for the model when a write is refused. */
export function formatScanReport(result: ScanResult, install: InstallVerdict = shouldAllowInstall(result)): string {
  const lines = [`Scan: ${result.skillName} (${result.source}/${result.trustLevel})  Verdict: ${result.verdict.toUpperCase()}`];
  for (const f of result.findings) {
    const where = f.line > 0 ? `${f.file}:${f.line}` : f.file || '(skill)';
    lines.push(`  ${f.severity.toUpperCase().padEnd(8)} ${f.category.padEnd(20)} ${where.padEnd(24)} "${f.match}"`);
  }
  const label = install.decision === 'allow' ? 'ALLOWED' : install.decision === 'ask' ? 'NEEDS CONFIRMATION' : 'BLOCKED';
  lines.push(`Decision: ${label} — ${install.reason}`);
  return lines.join('\n');
}

// =============================================================================================
// Content hashes

function toHex(buffer: ArrayBuffer): string {
  return [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Digest over (path, NUL, bytes) of every file in sorted path order. `contentHash` is the
 * short form (`sha256:` + 16 hex chars) used to cache scans; `fullContentHash` the whole digest.
 */
export async function contentHash(files: readonly Pick<SkillFileInput, 'path' | 'content'>[]): Promise<{ contentHash: string; fullContentHash: string }> {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    chunks.push(encoder.encode(file.path), new Uint8Array([0]));
    chunks.push(typeof file.content === 'string' ? encoder.encode(file.content) : file.content);
  }
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  const all = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  const hex = toHex(await crypto.subtle.digest('SHA-256', all));
  return { contentHash: `sha256:${hex.slice(0, 16)}`, fullContentHash: `sha256:${hex}` };
}
