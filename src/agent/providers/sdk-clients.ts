/** One SDK client per key, made when first used: a pool's keys each keep their own connection settings. */
export function perKey<C>(make: (apiKey: string | undefined) => C): (apiKey: string | undefined) => C {
  const clients = new Map<string, C>();
  return (apiKey) => {
    const name = apiKey ?? '';
    let client = clients.get(name);
    if (!client) {
      client = make(apiKey);
      clients.set(name, client);
    }
    return client;
  };
}
