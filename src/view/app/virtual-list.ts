/// <reference lib="dom" />
/**
 * A list that puts only the rows in view (and a few around them) in the page, so that 20,000 steps
 * or 10,000 timeline lanes open and scroll without long tasks: rows have one fixed height, a spacer
 * gives the full height.
 */
const OVERSCAN = 10;

export class VirtualList {
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private selected = -1;
  private frame = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly count: number,
    private readonly rowHeight: number,
    private readonly renderRow: (index: number) => HTMLElement,
  ) {
    this.spacer = document.createElement("div");
    this.spacer.style.height = `${count * rowHeight}px`;
    this.spacer.style.position = "relative";
    this.rows = document.createElement("div");
    this.rows.style.position = "absolute";
    this.rows.style.left = "0";
    this.rows.style.right = "0";
    this.spacer.append(this.rows);
    container.append(this.spacer);
    container.addEventListener("scroll", () => {
      if (this.frame === 0) this.frame = requestAnimationFrame(() => this.draw());
    });
    this.draw();
  }

  get scrollTop(): number {
    return this.container.scrollTop;
  }

  set scrollTop(value: number) {
    this.container.scrollTop = value;
    this.draw();
  }

  setSelected(index: number, reveal: boolean): void {
    this.selected = index;
    if (reveal) {
      const top = index * this.rowHeight;
      const view = this.container.clientHeight || 400;
      if (top < this.container.scrollTop) this.container.scrollTop = top;
      else if (top + this.rowHeight > this.container.scrollTop + view)
        this.container.scrollTop = top + this.rowHeight - view;
    }
    this.draw();
  }

  private draw(): void {
    this.frame = 0;
    const view = this.container.clientHeight || 400;
    const first = Math.max(0, Math.floor(this.container.scrollTop / this.rowHeight) - OVERSCAN);
    const last = Math.min(this.count, Math.ceil((this.container.scrollTop + view) / this.rowHeight) + OVERSCAN);
    this.rows.style.top = `${first * this.rowHeight}px`;
    const rows: HTMLElement[] = [];
    for (let index = first; index < last; index++) {
      const row = this.renderRow(index);
      row.style.height = `${this.rowHeight}px`;
      if (this.selected >= 0) row.setAttribute("aria-selected", String(index === this.selected));
      rows.push(row);
    }
    this.rows.replaceChildren(...rows);
  }
}
