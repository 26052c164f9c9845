// The durable-run chart: history bytes per step against the step (store vs inline transcript, log–log) and the
// section's ratios as bars on a log scale. Drawn as SVG text and rasterised by resvg, which ships in its npm package.
import { writeFile } from 'node:fs/promises';
import { Resvg } from '@resvg/resvg-js';
import { formatBytes } from './bytes.js';
import type { BenchRow } from './measure.js';

/** One ratio bar; `target` draws the ceiling it should stay under. */
export interface ChartBar {
  label: string;
  value: number;
  target?: number;
}

/** A durable-run measurement's table rows and the bars it adds to the chart. */
export interface ChartedRows {
  rows: BenchRow[];
  bars: ChartBar[];
}

/** Everything the chart shows. */
export interface ChartData {
  title: string;
  store: ReadonlyMap<number, number>;
  inline: ReadonlyMap<number, number>;
  storeWritten: readonly { step: number; bytes: number }[];
  bars: readonly ChartBar[];
}

const WIDTH = 1500;
const HEIGHT = 680;
const FONT = "font-family='DejaVu Sans, Arial, sans-serif'";
const STORE_COLOUR = '#1f77b4';
const INLINE_COLOUR = '#d62728';
const WRITTEN_COLOUR = '#2ca02c';

/** Renders the chart to a PNG file. */
export async function writeChart(file: string, data: ChartData): Promise<void> {
  const png = new Resvg(chartSvg(data), {
    background: 'white',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  })
    .render()
    .asPng();
  await writeFile(file, png);
}

/** The chart as SVG text. */
export function chartSvg(data: ChartData): string {
  return [
    `<svg xmlns='http://www.w3.org/2000/svg' width='${WIDTH}' height='${HEIGHT}' viewBox='0 0 ${WIDTH} ${HEIGHT}'>`,
    `<text x='${WIDTH / 2}' y='34' text-anchor='middle' font-size='22' font-weight='bold' ${FONT}>${escape(data.title)}</text>`,
    historyPanel(data, { left: 90, top: 90, width: 640, height: 500 }),
    barsPanel(data.bars, { left: 1090, top: 90, width: 360, height: 500 }),
    '</svg>',
  ].join('\n');
}

interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

function historyPanel(data: ChartData, box: Box): string {
  const values = [
    ...data.store.values(),
    ...data.inline.values(),
    ...data.storeWritten.map((point) => point.bytes),
  ].filter((value) => value > 0);
  const steps = [...data.store.keys(), ...data.inline.keys()];
  // Powers of 4 from 1 KiB keep the byte ticks round (1, 4, 16, 64, 256 KiB, 1 MiB, …).
  const low = 4 ** Math.floor(Math.log(Math.max(1, Math.min(...values))) / Math.log(4));
  const high = 4 ** Math.ceil(Math.log(Math.max(...values)) / Math.log(4));
  const lastStep = 10 ** Math.ceil(Math.log10(Math.max(10, ...steps)));
  const x = (step: number) => box.left + (Math.log10(step) / Math.log10(lastStep)) * box.width;
  const y = (bytes: number) =>
    box.top + box.height - ((Math.log(bytes) - Math.log(low)) / (Math.log(high) - Math.log(low))) * box.height;
  const parts: string[] = [
    `<text x='${box.left + box.width / 2}' y='${box.top - 24}' text-anchor='middle' font-size='18' ${FONT}>History bytes added per step</text>`,
    `<rect x='${box.left}' y='${box.top}' width='${box.width}' height='${box.height}' fill='none' stroke='#888'/>`,
  ];
  for (let tick = low; tick <= high; tick *= 4) {
    parts.push(
      `<line x1='${box.left}' x2='${box.left + box.width}' y1='${y(tick)}' y2='${y(tick)}' stroke='#e4e4e4'/>`,
      `<text x='${box.left - 8}' y='${y(tick) + 5}' text-anchor='end' font-size='14' ${FONT}>${formatBytes(tick).replace('.0 ', ' ')}</text>`,
    );
  }
  for (let tick = 1; tick <= lastStep; tick *= 10) {
    parts.push(
      `<line x1='${x(tick)}' x2='${x(tick)}' y1='${box.top}' y2='${box.top + box.height}' stroke='#e4e4e4'/>`,
      `<text x='${x(tick)}' y='${box.top + box.height + 22}' text-anchor='middle' font-size='14' ${FONT}>${tick.toLocaleString('en-US')}</text>`,
    );
  }
  parts.push(
    `<text x='${box.left + box.width / 2}' y='${box.top + box.height + 48}' text-anchor='middle' font-size='15' ${FONT}>step (log scale)</text>`,
  );
  const line = (series: ReadonlyMap<number, number>, colour: string) => {
    const points = [...series.entries()]
      .filter(([, bytes]) => bytes > 0)
      .sort(([left], [right]) => left - right)
      .map(([step, bytes]) => `${x(step).toFixed(1)},${y(bytes).toFixed(1)}`);
    return `<polyline points='${points.join(' ')}' fill='none' stroke='${colour}' stroke-width='2'/>`;
  };
  parts.push(line(data.inline, INLINE_COLOUR), line(data.store, STORE_COLOUR));
  for (const point of data.storeWritten) {
    parts.push(`<circle cx='${x(point.step)}' cy='${y(point.bytes)}' r='6' fill='${WRITTEN_COLOUR}'/>`);
  }
  const legend = [
    [INLINE_COLOUR, 'history, transcript inline (a design without the store)'],
    [STORE_COLOUR, 'history, content store (keys in history)'],
    [WRITTEN_COLOUR, 'bytes written to the content store per step'],
  ] as const;
  legend.forEach(([colour, text], index) => {
    const rowY = box.top + 22 + index * 22;
    parts.push(
      index === 2
        ? `<circle cx='${box.left + 24}' cy='${rowY - 5}' r='6' fill='${colour}'/>`
        : `<line x1='${box.left + 12}' x2='${box.left + 36}' y1='${rowY - 5}' y2='${rowY - 5}' stroke='${colour}' stroke-width='3'/>`,
      `<text x='${box.left + 44}' y='${rowY}' font-size='14' ${FONT}>${escape(text)}</text>`,
    );
  });
  return parts.join('\n');
}

// Ratios from 0.001 to 100 on one log axis: the byte ratios are small, the time ratios near 1 and, without model
// latency, the durability tax an order of magnitude above it.
const BAR_LOW = 0.001;
const BAR_HIGH = 100;

function barsPanel(bars: readonly ChartBar[], box: Box): string {
  const x = (value: number) =>
    box.left +
    ((Math.log10(clamp(value)) - Math.log10(BAR_LOW)) / (Math.log10(BAR_HIGH) - Math.log10(BAR_LOW))) * box.width;
  const rowHeight = box.height / Math.max(1, bars.length);
  const parts: string[] = [
    `<text x='${box.left + box.width / 2 - 150}' y='${box.top - 24}' text-anchor='middle' font-size='18' ${FONT}>Ratios (log scale; red: target ceiling)</text>`,
  ];
  for (let tick = BAR_LOW; tick <= BAR_HIGH * 1.001; tick *= 10) {
    parts.push(
      `<line x1='${x(tick)}' x2='${x(tick)}' y1='${box.top}' y2='${box.top + box.height}' stroke='${tick === 1 ? '#666' : '#e4e4e4'}'/>`,
      `<text x='${x(tick)}' y='${box.top + box.height + 22}' text-anchor='middle' font-size='14' ${FONT}>${tick >= 1 ? tick.toFixed(0) : tick.toString()}×</text>`,
    );
  }
  bars.forEach((bar, index) => {
    const top = box.top + index * rowHeight;
    const barHeight = Math.min(26, rowHeight * 0.6);
    const middle = top + rowHeight / 2;
    const end = x(bar.value);
    const over = bar.target !== undefined && bar.value > bar.target;
    // The value goes right of the bar and of the target tick, whichever ends later.
    const labelAt = Math.max(end, bar.target === undefined ? 0 : x(bar.target)) + 8;
    parts.push(
      `<text x='${box.left - 10}' y='${middle + 5}' text-anchor='end' font-size='14' ${FONT}>${escape(bar.label)}</text>`,
      `<rect x='${box.left}' y='${middle - barHeight / 2}' width='${Math.max(1, end - box.left)}' height='${barHeight}' fill='${over ? INLINE_COLOUR : STORE_COLOUR}' opacity='0.85'/>`,
      `<text x='${labelAt}' y='${middle + 5}' font-size='14' font-weight='bold' ${FONT}>${escape(formatValue(bar.value))}</text>`,
    );
    if (bar.target !== undefined) {
      const at = x(bar.target);
      parts.push(
        `<line x1='${at}' x2='${at}' y1='${middle - barHeight / 2 - 5}' y2='${middle + barHeight / 2 + 5}' stroke='${INLINE_COLOUR}' stroke-width='3'/>`,
      );
    }
  });
  return parts.join('\n');
}

function clamp(value: number): number {
  return Math.min(BAR_HIGH, Math.max(BAR_LOW, value));
}

function formatValue(value: number): string {
  if (value < 0.1) return `${(value * 100).toFixed(value < 0.01 ? 2 : 1)} %`;
  return `${value.toFixed(2)}×`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
