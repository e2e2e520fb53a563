/** The sentiment index as a half-circle gauge: 0 extreme selling, 50 neutral, 100 extreme buying. */
import type { Component } from "solid-js"

const BANDS = [
  { to: 20, color: "var(--neg-strong)" }, { to: 40, color: "var(--neg)" }, { to: 60, color: "var(--neutral)" },
  { to: 80, color: "var(--pos)" }, { to: 100, color: "var(--pos-strong)" }
]

const point = (value: number, r: number) => {
  const a = Math.PI * (1 - value / 100)
  return { x: 100 + r * Math.cos(a), y: 100 - r * Math.sin(a) }
}

const arc = (from: number, to: number, r: number) => {
  const a = point(from, r)
  const b = point(to, r)
  return `M ${a.x.toFixed(2)} ${a.y.toFixed(2)} A ${r} ${r} 0 0 1 ${b.x.toFixed(2)} ${b.y.toFixed(2)}`
}

export const Gauge: Component<{ score: number; label: string }> = (props) => {
  const needle = () => point(Math.max(0, Math.min(100, props.score)), 70)
  return (
    <figure class="gauge" aria-label={`Whale Sentiment Index ${props.score.toFixed(0)}: ${props.label}`}>
      <svg viewBox="0 0 200 118" role="img">
        {BANDS.map((band, i) => (
          <path d={arc(i === 0 ? 0 : BANDS[i - 1]!.to, band.to, 84)} stroke={band.color} stroke-width="16" fill="none" />
        ))}
        <line x1="100" y1="100" x2={needle().x} y2={needle().y} stroke="var(--text)" stroke-width="4" stroke-linecap="round" />
        <circle cx="100" cy="100" r="7" fill="var(--text)" />
      </svg>
      <figcaption>
        <span class="gauge-score">{props.score.toFixed(0)}</span>
        <span class="gauge-label">{props.label}</span>
      </figcaption>
    </figure>
  )
}
