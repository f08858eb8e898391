export async function runDemoCommand(): Promise<number> {
  return Promise.resolve(1);
}
