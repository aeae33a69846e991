// The types of file-times-reporter.mjs (plain JavaScript: node loads a reporter before tsx).
export default function fileTimes(source: AsyncIterable<unknown>): AsyncGenerator<string>;
