/**
 * Concept classes for the sentence model: a word of a class also yields the class, so that a synonym or a
 * translation the training data never had still weighs like the words it had ("passphrase" like "password",
 * "heimlich" like "silently"). Words are matched after features.ts has folded accents and case: an entry of
 * four letters or more matches every word it begins ("exfiltrat" matches "exfiltrates"); a shorter one, and
 * every Chinese or Japanese pair of characters, matches only itself.
 *
 * The classes name what poisoned text is made of (secrets, secrecy, the model addressed, an order, data sent
 * somewhere, another tool called, outsiders, money, shell commands, claimed authority, claimed consent, the
 * user, other products, the conversation), in English, Spanish, French, German, Portuguese, Italian, Russian,
 * Chinese and Japanese.
 */
// One word per line would make the lists 500 lines long.
// prettier-ignore
const CONCEPTS: Record<string, string[]> = {
  secret: [
    'password', 'passwd', 'passphrase', 'token', 'secret', 'credential', 'cookie', 'apikey', 'api_key', 'private',
    'seed', 'mnemonic', 'cvc', 'cvv', 'ssn', 'otp', '2fa', 'mfa', 'pin', 'session', 'bearer', 'npmrc', 'env', 'ssh',
    'id_rsa', 'keychain', 'wallet', 'login', 'recovery', 'contrasena', 'clave', 'credencial',
    'passwort', 'kennwort', 'zugangsdaten', 'schlussel', 'senha', 'chiave', 'identifiant', 'пароль', 'токен',
    'ключ', 'учетн', '密码', '密钥', '凭证', '令牌', 'パス', '暗証',
  ],
  hide: [
    'silent', 'quiet', 'covert', 'secretly', 'hidden', 'hide', 'conceal', 'disclos', 'without', 'unnotic', 'behind',
    'background', 'invisib', 'stealth', 'discreet', 'mention', 'tell', 'notif', 'inform', 'reveal', 'ocult',
    'silencio', 'discret', 'sans', 'insu', 'ohne', 'heimlich', 'unbemerkt', 'verschweig', 'sigilo',
    'senza', 'nascost', 'тайно', 'скрыт', 'незамет', '悄悄', '秘密', '隐藏', '告诉', '不要', '内緒', '隠し', '黙っ',
  ],
  model: [
    'assistant', 'agent', 'model', 'llm', 'ai', 'you', 'your', 'claude', 'gpt', 'chatbot', 'copilot', 'asistente',
    'modelo', 'agente', 'assistent', 'modele', 'modell', 'ассистент', 'модел', 'агент', '助手', '模型', '代理', 'アシ',
    'モデ',
  ],
  order: [
    'must', 'should', 'shall', 'require', 'mandator', 'always', 'never', 'need', 'debe', 'siempre',
    'nunca', 'obligator', 'necesari', 'muss', 'musst', 'soll', 'immer', 'niemals', 'verpflicht', 'doit', 'faut',
    'toujours', 'jamais', 'obligatoire', 'deve', 'sempre', 'obrigat', 'bisogna', 'должен', 'должна', 'обязательн',
    'всегда', 'никогда', 'нужно', '必须', '务必', '一定', '始终', '总是', '必ず', '必要', '常に',
  ],
  send: [
    'send', 'forward', 'upload', 'post', 'transmit', 'share', 'copy', 'copies', 'mirror', 'relay', 'export', 'sync',
    'deliver', 'leak', 'exfiltrat', 'beacon', 'report', 'enviar', 'envia', 'mandar', 'subir', 'compartir', 'envoy',
    'partag', 'transfer', 'senden', 'sendet', 'ubermittel', 'weiterleit', 'hochlad', 'kopier', 'compartilh',
    'inviar', 'invia', 'condivid', 'отправ', 'переда', 'пересыл', 'загруз', '发送', '上传', '传给', '转发', '送信', '送っ',
    'アッ', '転送',
  ],
  call: [
    'call', 'invok', 'use', 'using', 'run', 'execut', 'trigger', 'route', 'dispatch', 'redirect', 'delegat',
    'switch', 'prefer', 'instead', 'rather', 'first', 'before', 'after', 'prior', 'llamar', 'llama', 'invoc',
    'usar', 'utiliz', 'antes', 'despues', 'appel', 'utilis', 'avant', 'apres', 'aufruf', 'aufgeruf', 'nutze',
    'verwend', 'benutz', 'vorher', 'zuerst', 'danach', 'chamar', 'chiamar', 'prima', 'вызов', 'вызва', 'вызыв',
    'использ', 'сначала', 'перед', '调用', '使用', '之前', '先调', '呼び', '実行', '前に',
  ],
  outside: [
    'third', 'external', 'outside', 'remote', 'partner', 'vendor', 'advertis', 'analytic', 'telemetr', 'track',
    'broker', 'affiliat', 'tercero', 'externo', 'dritt', 'extern', 'tiers', 'terceir', 'terzi', 'сторонн', 'внешн',
    '第三', '外部', '广告',
  ],
  money: [
    'money', 'fund', 'transfer', 'wire', 'iban', 'account', 'wallet', 'payment', 'pay', 'amount', 'balance',
    'holding', 'usdc', 'btc', 'eth', 'refund', 'deposit', 'withdraw', 'invoice', 'dinero', 'pago', 'cuenta', 'geld',
    'konto', 'zahlung', 'uberweis', 'paiement', 'virement', 'compte', 'pagament', 'conta', 'деньг', 'платеж',
    'перевод', 'счет', '转账', '付款', '钱包', '账户', '送金', '口座',
  ],
  shell: [
    'curl', 'wget', 'sudo', 'bash', 'sh', 'zsh', 'chmod', 'chown', 'whoami', 'powershell', 'iex', 'pip', 'npx',
    'eval', 'exec', 'shell', 'terminal', 'command', 'script', 'cron', 'bashrc', 'zshrc', 'profile', 'base64', 'nc',
    'netcat', 'rm', 'authorized_keys', 'sudoers', 'comando', 'befehl', 'commande', 'команд', '命令', 'コマ',
  ],
  authority: [
    'ignor', 'overrid', 'disregard', 'bypass', 'forget', 'supersed', 'prevail', 'admin', 'system', 'developer',
    'jailbreak', 'unrestrict', 'debug', 'mode', 'protocol', 'complian', 'directive', 'policy', 'authori',
    'official', 'priority', 'sistema', 'prioridad', 'anular', 'anweisung', 'vorrang', 'systeme', 'priorit', 'игнор',
    'систем', 'приоритет', 'инструкц', '忽略', '系统', '指令', '优先', '覆盖', '無視', 'シス', '指示',
  ],
  consent: [
    'approv', 'consent', 'authoriz', 'agreed', 'agree', 'confirm', 'permission', 'accepted',
    'cleared', 'verif', 'already', 'standing', 'previous', 'urgent', 'immediate', 'aprob', 'consentimiento',
    'genehmig', 'zugestimmt', 'bereits', 'dringend', 'approuv', 'deja', 'urgent', 'aprovad', 'approvat', 'одобр',
    'соглас', 'срочно', '同意', '批准', '授权', '紧急', '承認', '緊急',
  ],
  user: [
    'user', 'customer', 'owner', 'holder', 'client', 'usuario', 'nutzer', 'benutzer', 'kunde', 'utilisateur',
    'utente', 'пользоват', 'клиент', '用户', 'ユー', '利用者',
  ],
  other: [
    'other', 'competitor', 'competing', 'rival', 'alternativ', 'another', 'different', 'built-in', 'default',
    'existing', 'legacy', 'deprecat', 'obsolet', 'outdated', 'supersed', 'replac', 'unreliab', 'stale', 'otro',
    'otra', 'competencia', 'ander', 'konkurren', 'autre', 'concurren', 'outro', 'altri', 'altro', 'друг',
    'конкурент', '其他', '竞争', '他の', '競合',
  ],
  conversation: [
    'conversation', 'chat', 'history', 'transcript', 'prompt', 'context', 'memory', 'dialog', 'message',
    'conversacion', 'historial', 'gesprach', 'verlauf', 'historique', 'conversa', 'cronologia', 'переписк',
    'истори', 'диалог', '对话', '聊天', '历史', '提示', '会話', '履歴',
  ],
};

const EXACT = new Map<string, string[]>();
const PREFIX = new Map<string, string[]>();
/** The longest prefix entry: a word is looked up by its prefixes from this length down to four. */
let longestPrefix = 4;
for (const [concept, entries] of Object.entries(CONCEPTS))
  for (const entry of entries) {
    const exact = entry.length < 4 || /[\u3040-\u30ff\u3400-\u9fff]/.test(entry);
    const map = exact ? EXACT : PREFIX;
    map.set(entry, [...(map.get(entry) ?? []), `<${concept}>`]);
    if (!exact) longestPrefix = Math.max(longestPrefix, entry.length);
  }

/** The concept classes of a word (lower case, accents folded): a bounded number of lookups per word. */
export function conceptsOf(word: string, into: Set<string>): void {
  for (const concept of EXACT.get(word) ?? []) into.add(concept);
  for (let length = Math.min(word.length, longestPrefix); length >= 4; length--)
    for (const concept of PREFIX.get(word.slice(0, length)) ?? []) into.add(concept);
}
